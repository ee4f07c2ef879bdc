/** What {@link phpUnserialize} returns for a value it cannot read. */
export const UNPARSEABLE: unique symbol = Symbol("unparseable");

/** A JSON value as PHP's `json_encode()` would write the unserialized PHP value. */
export type PhpJson = null | boolean | number | string | PhpJson[] | { [key: string]: PhpJson };

/** Deeper nesting than this is refused: Drupal's data is a few levels deep, and recursion must stay bounded. */
const MAX_DEPTH = 32;

class Reader {
  position = 0;
  constructor(readonly bytes: Buffer) {}

  /** Reads up to (and past) `terminator`, returning the text before it. */
  until(terminator: string): string {
    const end = this.bytes.indexOf(terminator, this.position, "latin1");
    if (end < 0) throw new SyntaxError("unterminated");
    const text = this.bytes.toString("latin1", this.position, end);
    this.position = end + 1;
    return text;
  }

  expect(text: string): void {
    if (this.bytes.toString("latin1", this.position, this.position + text.length) !== text) throw new SyntaxError(`expected ${text}`);
    this.position += text.length;
  }

  integer(terminator: string): number {
    const text = this.until(terminator);
    if (!/^[+-]?\d{1,15}$/.test(text)) throw new SyntaxError("bad integer");
    return Number(text);
  }
}

function readValue(reader: Reader, depth: number): PhpJson {
  const type = reader.bytes.toString("latin1", reader.position, reader.position + 2);
  reader.position += 2;
  switch (type) {
    case "N;":
      return null;
    case "b:": {
      const flag = reader.until(";");
      if (flag !== "0" && flag !== "1") throw new SyntaxError("bad boolean");
      return flag === "1";
    }
    case "i:":
      return reader.integer(";");
    case "d:": {
      const text = reader.until(";");
      const value = Number(text);
      // PHP writes INF and NAN, which JSON cannot carry. Each part of the pattern can match a
      // digit in one way only, so a long run of digits cannot make it backtrack.
      if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(text) || !Number.isFinite(value)) throw new SyntaxError("bad float");
      return value;
    }
    case "s:": {
      // The length counts bytes, not characters: slice bytes, then decode as UTF-8.
      const length = reader.integer(":");
      reader.expect('"');
      const end = reader.position + length;
      if (length < 0 || end > reader.bytes.length) throw new SyntaxError("bad string length");
      const text = reader.bytes.toString("utf8", reader.position, end);
      reader.position = end;
      reader.expect('";');
      return text;
    }
    case "a:":
      return readArray(reader, depth);
    default:
      throw new SyntaxError(`unsupported type ${type}`);
  }
}

function readArray(reader: Reader, depth: number): PhpJson {
  if (depth >= MAX_DEPTH) throw new SyntaxError("too deep");
  const count = reader.integer(":");
  if (count < 0) throw new SyntaxError("bad array length");
  reader.expect("{");
  const entries: Array<[string | number, PhpJson]> = [];
  for (let i = 0; i < count; i++) {
    const key = readValue(reader, depth + 1);
    if (typeof key !== "string" && !(typeof key === "number" && Number.isInteger(key))) throw new SyntaxError("bad key");
    entries.push([key, readValue(reader, depth + 1)]);
  }
  reader.expect("}");
  // json_encode() writes a list only when the keys are exactly 0, 1, 2, … in order.
  if (entries.every(([key], index) => key === index)) return entries.map(([, value]) => value);
  const object: { [key: string]: PhpJson } = {};
  // defineProperty, so a key named "__proto__" is data, not a prototype change.
  for (const [key, value] of entries) Object.defineProperty(object, String(key), { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/**
 * One PHP-serialized value as `json_encode()` would give it, or {@link UNPARSEABLE} (objects,
 * references, non-finite floats, trailing bytes, over 32 levels). Integer-like keys may move first.
 *
 * @example
 * ```ts
 * phpUnserialize('a:1:{s:7:"overlay";i:1;}'); // { overlay: 1 }
 * phpUnserialize("b:0;");                      // false
 * phpUnserialize('O:8:"stdClass":0:{}');       // UNPARSEABLE
 * ```
 */
export function phpUnserialize(input: string | Buffer): PhpJson | typeof UNPARSEABLE {
  const reader = new Reader(typeof input === "string" ? Buffer.from(input, "utf8") : input);
  try {
    const value = readValue(reader, 0);
    return reader.position === reader.bytes.length ? value : UNPARSEABLE;
  } catch {
    return UNPARSEABLE;
  }
}

/**
 * `unserialize(users.data)` as the login reply shows it: `false` for NULL, `''`, `b:0;` (as Drupal)
 * and anything unreadable, since guessing a shape is worse than Drupal's "no data".
 *
 * @example
 * ```ts
 * userDataField(null);                           // false
 * userDataField('a:1:{s:7:"contact";i:1;}');     // { contact: 1 }
 * ```
 */
export function userDataField(raw: string | Buffer | null | undefined): PhpJson {
  if (raw === null || raw === undefined || raw.length === 0) return false;
  const value = phpUnserialize(raw);
  return value === UNPARSEABLE ? false : value;
}
