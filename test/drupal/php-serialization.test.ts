/**
 * The PHP serialization reader against PHP itself: values fast-check generates are built and
 * serialized by `php -r` (big integers, floats, strings of any bytes, nested arrays and
 * objects, private and protected properties, shared objects `r:`, references `R:`, `C:`
 * payloads, enums, INF and NAN), then walked and read here; what `json_encode()` writes for them
 * is what `phpUnserialize` must give. `$_SESSION` as `session_encode()` writes it is split into
 * its entries, and an entry written here is read back by PHP's `session_decode()`.
 */
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sessionEntries, withSessionEntry } from "../../src/drupal/php-session-data.js";
import { phpUnserialize, skipPhpValue, UNPARSEABLE } from "../../src/drupal/php-unserialize.js";

const php = (() => {
  try {
    execFileSync("php", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    console.warn("PHP is not installed: skipping the comparisons with PHP's own serialize()");
    return false;
  }
})();

/** A PHP value to build: its PHP expression, whether json_encode() can write it, and whether its numbering is PHP's own throughout. */
interface Built {
  readonly code: string;
  /** json_encode() refuses it (INF, NAN, an enum) or writes what only the class knows (a `C:` payload, ArrayObject). */
  readonly jsonExact: boolean;
}

/** Variables the values share: objects named twice (`r:`) and PHP references (`R:`), defined before the value. */
class Prelude {
  readonly lines: string[] = [];
  #next = 0;
  define(code: string): string {
    const name = `$v${this.#next++}`;
    this.lines.push(`${name} = ${code};`);
    return name;
  }
}

const bytesCode = (text: string) => `base64_decode('${Buffer.from(text, "utf8").toString("base64")}')`;

type Spec =
  | { t: "null" }
  | { t: "bool"; v: boolean }
  | { t: "int"; v: bigint }
  | { t: "float"; v: number }
  | { t: "special"; v: "INF" | "-INF" | "NAN" }
  | { t: "string"; v: string }
  | { t: "array"; items: Array<[string | number, Spec]> }
  | { t: "object"; props: Array<[string, Spec]> }
  | { t: "hidden"; a: Spec; b: Spec; c: Spec }
  | { t: "shared"; v: Spec }
  | { t: "reference"; v: Spec }
  | { t: "enum" }
  | { t: "custom"; payload: string }
  | { t: "arrayObject"; v: Spec };

const scalar: fc.Arbitrary<Spec> = fc.oneof(
  fc.constant<Spec>({ t: "null" }),
  fc.boolean().map<Spec>((v) => ({ t: "bool", v })),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map<Spec>((v) => ({ t: "int", v })),
  fc.integer().map<Spec>((v) => ({ t: "int", v: BigInt(v) })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map<Spec>((v) => ({ t: "float", v })),
  fc.constantFrom<Spec>({ t: "special", v: "INF" }, { t: "special", v: "-INF" }, { t: "special", v: "NAN" }),
  fc.string({ unit: "binary", maxLength: 12 }).map<Spec>((v) => ({ t: "string", v })),
  fc.constantFrom<Spec>({ t: "enum" }),
  fc.string({ maxLength: 10 }).map<Spec>((payload) => ({ t: "custom", payload })),
);

const key = fc.oneof(fc.integer({ min: -5, max: 20 }), fc.string({ unit: "binary", maxLength: 6 }), fc.constantFrom("0", "12", "__proto__", "-3"));

const { spec } = fc.letrec<{ spec: Spec }>((tie) => ({
  spec: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(fc.tuple(key, tie("spec")), { maxLength: 5 }).map<Spec>((items) => ({ t: "array", items })),
    fc.array(fc.tuple(fc.string({ maxLength: 5 }), tie("spec")), { maxLength: 4 }).map<Spec>((props) => ({ t: "object", props })),
    fc.tuple(tie("spec"), tie("spec"), tie("spec")).map<Spec>(([a, b, c]) => ({ t: "hidden", a, b, c })),
    tie("spec").map<Spec>((v) => ({ t: "shared", v })),
    tie("spec").map<Spec>((v) => ({ t: "reference", v })),
    tie("spec").map<Spec>((v) => ({ t: "arrayObject", v })),
  ),
}));

/** The PHP expression of `spec`; shared objects and references are defined in `prelude` and named twice. */
function build(spec: Spec, prelude: Prelude): Built {
  switch (spec.t) {
    case "null":
      return { code: "NULL", jsonExact: true };
    case "bool":
      return { code: spec.v ? "TRUE" : "FALSE", jsonExact: true };
    case "int":
      return { code: `(int) '${spec.v}'`, jsonExact: true };
    case "float":
      return { code: `(float) '${Object.is(spec.v, -0) ? "-0" : String(spec.v)}'`, jsonExact: true };
    case "special":
      return { code: spec.v === "NAN" ? "NAN" : spec.v === "INF" ? "INF" : "-INF", jsonExact: false };
    case "string":
      return { code: bytesCode(spec.v), jsonExact: true };
    case "enum":
      return { code: "Suit::Hearts", jsonExact: false };
    case "custom":
      return { code: `new Custom(${bytesCode(spec.payload)})`, jsonExact: false };
    case "arrayObject": {
      const inner = build(spec.v, prelude);
      return { code: `new ArrayObject(array(${inner.code}))`, jsonExact: false };
    }
    case "array": {
      const parts = spec.items.map(([k, v]) => ({ k: typeof k === "number" ? String(k) : bytesCode(k), v: build(v, prelude) }));
      return { code: `array(${parts.map(({ k, v }) => `${k} => ${v.code}`).join(", ")})`, jsonExact: parts.every(({ v }) => v.jsonExact) };
    }
    case "object": {
      const parts = spec.props.map(([k, v]) => ({ k: bytesCode(k), v: build(v, prelude) }));
      return { code: `(object) array(${parts.map(({ k, v }) => `${k} => ${v.code}`).join(", ")})`, jsonExact: parts.every(({ v }) => v.jsonExact) };
    }
    case "hidden": {
      const [a, b, c] = [build(spec.a, prelude), build(spec.b, prelude), build(spec.c, prelude)];
      // The private and protected properties are never in json_encode()'s output, so it writes what this refuses (INF in b).
      return { code: `new Hidden(${a.code}, ${b.code}, ${c.code})`, jsonExact: a.jsonExact && b.jsonExact && c.jsonExact };
    }
    case "shared": {
      const inner = build(spec.v, prelude);
      const name = prelude.define(`(object) array('x' => ${inner.code})`);
      return { code: `array(${name}, ${name})`, jsonExact: inner.jsonExact };
    }
    case "reference": {
      const inner = build(spec.v, prelude);
      const name = prelude.define(inner.code);
      // `&$v` only in an array: the value and a PHP reference to it.
      return { code: `array(&${name}, &${name})`, jsonExact: inner.jsonExact };
    }
  }
}

const CLASSES = `
error_reporting(E_ALL & ~E_DEPRECATED);
enum Suit { case Hearts; }
class Hidden { public $a; private $b; protected $c; function __construct($a, $b, $c) { $this->a = $a; $this->b = $b; $this->c = $c; } }
class Custom implements Serializable { public $p; function __construct($p) { $this->p = $p; } function serialize() { return $this->p; } function unserialize($d) { $this->p = $d; } }
`;

/** Each value's serialization (base64) and json_encode() (or false), from one PHP process. */
function serializedByPhp(values: readonly Spec[]): Array<{ serialized: Buffer; json: string | false; jsonExact: boolean }> {
  const built = values.map((value) => {
    const prelude = new Prelude();
    const { code, jsonExact } = build(value, prelude);
    return {
      script: `${prelude.lines.join(" ")} $x = ${code}; echo base64_encode(serialize($x)), " ", json_encode(array(json_encode($x))), "\\n";`,
      jsonExact,
    };
  });
  const script = `${CLASSES} ${built.map(({ script }) => `(function () { ${script} })();`).join("\n")}`;
  const lines = execFileSync("php", ["-r", script], { encoding: "utf8", maxBuffer: 64 << 20 })
    .trim()
    .split("\n");
  return lines.map((line, index) => {
    const space = line.indexOf(" ");
    return {
      serialized: Buffer.from(line.slice(0, space), "base64"),
      json: (JSON.parse(line.slice(space + 1)) as [string | false])[0],
      jsonExact: built[index]!.jsonExact,
    };
  });
}

describe.skipIf(!php)("PHP's serialize() output, generated", () => {
  it("is walked to its end, and read as json_encode() writes it", () => {
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 25 }), (values) => {
        for (const { serialized, json, jsonExact } of serializedByPhp(values)) {
          const text = serialized.toString("latin1");
          expect(skipPhpValue(serialized, 0), text).toBe(serialized.length);
          // Inside other bytes, the walk stops where the value ends.
          expect(skipPhpValue(Buffer.concat([Buffer.from("x|"), serialized, Buffer.from("y|N;")]), 2), text).toBe(serialized.length + 2);
          const read = phpUnserialize(serialized);
          if (json === false) expect(read, text).toBe(UNPARSEABLE);
          else if (jsonExact) expect(read, text).toEqual(JSON.parse(json));
        }
      }),
      { seed: 3535, numRuns: 40 },
    );
  }, 120_000);

  it("splits $_SESSION as session_encode() writes it, and what it writes back is what session_decode() reads", () => {
    const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, spec), { selector: ([n]) => n, minLength: 1, maxLength: 8 }), (entries) => {
        const prelude = new Prelude();
        const assignments = entries.map(([n, value]) => `$_SESSION['${n}'] = ${build(value, prelude).code};`).join(" ");
        const encoded = execFileSync(
          "php",
          [
            "-r",
            `${CLASSES} session_save_path(sys_get_temp_dir()); @session_start(); ${prelude.lines.join(" ")} ${assignments} echo base64_encode(session_encode());`,
          ],
          { encoding: "utf8" },
        );
        const data = Buffer.from(encoded, "base64");
        const found = sessionEntries(data);
        expect(found?.map((entry) => entry.name)).toEqual(entries.map(([n]) => n));
        const written = withSessionEntry(data, "services_session_auth", 'a:1:{s:1:"v";i:1;}')!;
        // PHP reads the entry, and every other one as it was: references still point where they did.
        const decoded = execFileSync(
          "php",
          [
            "-r",
            `${CLASSES} session_save_path(sys_get_temp_dir()); @session_start(); [$a, $b] = explode(" ", stream_get_contents(STDIN));
             session_decode(base64_decode($a)); $before = serialize($_SESSION); $_SESSION = array();
             session_decode(base64_decode($b)); $keys = array_keys($_SESSION); $mine = $_SESSION['services_session_auth']; unset($_SESSION['services_session_auth']);
             echo json_encode(array($keys, $mine, serialize($_SESSION) === $before));`,
          ],
          { input: `${data.toString("base64")} ${written.toString("base64")}`, encoding: "utf8" },
        );
        const [keys, mine, same] = JSON.parse(decoded) as [string[], unknown, boolean];
        expect(new Set(keys)).toEqual(new Set(["services_session_auth", ...entries.map(([n]) => n)]));
        expect([mine, same]).toEqual([{ v: 1 }, true]);
      }),
      { seed: 3536, numRuns: 15 },
    );
  }, 120_000);
});

describe("the reader, on what PHP writes and on damage", () => {
  it("walks integers of any length, as PHP writes and clamps them (one of 16 digits broke the walk)", () => {
    for (const value of ["i:9007199254740993;", "i:-9223372036854775808;", "i:99999999999999999999;", 'a:1:{s:1:"n";i:1234567890123456;}']) {
      expect(skipPhpValue(Buffer.from(value), 0)).toBe(value.length);
    }
    expect(phpUnserialize('a:1:{s:1:"n";i:1234567890123456;}')).toEqual({ n: 1234567890123456 });
    expect(sessionEntries(Buffer.from("cart|a:1:{i:0;i:12345678901234567;}services_session_auth|i:1;"))?.map((entry) => entry.name)).toEqual([
      "cart",
      "services_session_auth",
    ]);
  });

  it("reads references as PHP numbers them: r: takes a number of its own, R: does not", () => {
    expect(phpUnserialize('a:4:{i:0;O:8:"stdClass":0:{}i:1;r:2;i:2;O:8:"stdClass":1:{s:1:"a";i:1;}i:3;r:4;}')).toEqual([{}, {}, { a: 1 }, { a: 1 }]);
    expect(phpUnserialize("a:4:{i:0;i:1;i:1;R:2;i:2;i:2;i:3;R:3;}")).toEqual([1, 1, 2, 2]);
    // A value that holds itself (json_encode() refuses recursion), a reference to nothing, one after a C: payload.
    expect(phpUnserialize("a:1:{i:0;R:1;}")).toBe(UNPARSEABLE);
    expect(phpUnserialize("a:1:{i:0;r:9;}")).toBe(UNPARSEABLE);
    expect(phpUnserialize('a:2:{i:0;C:1:"X":2:{ab}i:1;r:2;}')).toBe(UNPARSEABLE);
    expect(skipPhpValue(Buffer.from('a:2:{i:0;C:1:"X":2:{ab}i:1;r:2;}'), 0)).toBe(32);
  });

  it("refuses references that would expand past a few times the input (each level doubling what JSON.stringify would write)", () => {
    // 40 nested objects, each holding the next twice (the second time as r:): 2^40 leaves from 1,500 bytes.
    const depth = 40;
    let value = "";
    for (let level = 1; level <= depth; level++) value += 'O:8:"stdClass":2:{s:1:"a";';
    value += 'O:8:"stdClass":0:{}';
    for (let level = depth; level >= 1; level--) value += `s:1:"b";r:${level + 1};}`;
    expect(skipPhpValue(Buffer.from(value), 0)).toBe(value.length);
    expect(phpUnserialize(value)).toBe(UNPARSEABLE);
    // Two levels of the same are read, shared as PHP shares them.
    expect(phpUnserialize('O:8:"stdClass":2:{s:1:"a";O:8:"stdClass":0:{}s:1:"b";r:2;}')).toEqual({ a: {}, b: {} });
  });

  it("reads S: escaped strings, private and protected properties left out, nesting deeper than 32 levels", () => {
    expect(phpUnserialize('S:3:"\\61bc";')).toBe("abc");
    expect(phpUnserialize('O:1:"H":3:{s:1:"a";i:1;s:4:"\0H\0b";i:2;s:4:"\0*\0c";i:3;}')).toEqual({ a: 1 });
    const deep = `${"a:1:{i:0;".repeat(100)}N;${"}".repeat(100)}`;
    expect(skipPhpValue(Buffer.from(deep), 0)).toBe(deep.length);
    expect(phpUnserialize(deep)).not.toBe(UNPARSEABLE);
  });

  it("walks a nesting of 100,000 levels without running out of stack", () => {
    const deep = Buffer.from(`${"a:1:{i:0;".repeat(100_000)}N;${"}".repeat(100_000)}`);
    expect(skipPhpValue(deep, 0)).toBe(deep.length);
    expect(phpUnserialize(deep)).toBe(UNPARSEABLE);
  });
});
