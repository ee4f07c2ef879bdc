/**
 * PHP's `serialize()` format, read in one pass with an explicit stack: every value PHP writes
 * (integers of any size, floats with `INF` and `NAN`, strings, `S:` escaped strings, arrays,
 * objects, `C:` custom payloads, enums, `r:`/`R:` references), however deep, in time linear in
 * its bytes. {@link skipPhpValue} only walks; {@link phpUnserialize} also builds the value as
 * `json_encode()` would write it.
 *
 * @module
 */

/** What {@link phpUnserialize} returns for a value it cannot read. */
export const UNPARSEABLE: unique symbol = Symbol("unparseable");

/** A JSON value as PHP's `json_encode()` would write the unserialized PHP value. */
export type PhpJson = null | boolean | number | string | PhpJson[] | { [key: string]: PhpJson };

/** `json_encode()`'s own depth limit: deeper values are refused, as it refuses them. */
const MAX_DEPTH = 512;

const SEMICOLON = 0x3b;
const COLON = 0x3a;
const QUOTE = 0x22;
const OPEN = 0x7b;
const CLOSE = 0x7d;

/** A value under construction: an array's or object's members, read pair by pair. */
interface Frame {
  readonly object: boolean;
  /** Keys and values still to read (two per member). */
  remaining: number;
  /** The members read so far, in order (built only when building). */
  readonly members: Array<[string | number, PhpJson]> | undefined;
  key: string | number | undefined;
  /** The slot PHP numbered this value with, for references to it once it is complete. */
  readonly slot: number;
  /** Nodes in the value as `json_encode()` would expand it: references to it count it again. */
  size: number;
}

class Scanner {
  position: number;
  /** Values by PHP's numbering (1 for the outermost); `undefined` for a compound value still open. */
  readonly slots: Array<{ value: PhpJson; size: number } | undefined> = [undefined];
  /** A `C:` payload was skipped: PHP numbered the values inside it, so references after it cannot be placed. */
  numberingLost = false;
  /** Nodes the built value expands to: references repeat their target, so this bounds what `JSON.stringify` would write. */
  expanded = 0;
  /** Values PHP numbered so far (every value but keys and `R:`), for a caller that must shift references. */
  numbered = 0;
  /** Where each reference's number is written (`[start, end)` of its digits), when asked for. */
  references: Array<[number, number]> | undefined;

  constructor(
    readonly bytes: Buffer,
    start: number,
    readonly build: boolean,
    readonly maxExpanded: number,
  ) {
    this.position = start;
  }

  /** Digits (optionally signed) up to `terminator`, as text; moves past the terminator. Any number of digits, as PHP writes them. */
  digits(terminator: number, signed: boolean): string {
    const { bytes } = this;
    const start = this.position;
    let at = start;
    if (signed && (bytes[at] === 0x2d || bytes[at] === 0x2b)) at++;
    const first = at;
    while (at < bytes.length && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) at++;
    if (at === first || bytes[at] !== terminator) throw new SyntaxError("bad number");
    this.position = at + 1;
    return bytes.toString("latin1", start, at);
  }

  /** An unsigned count or length that must fit in memory. */
  length(terminator: number): number {
    const text = this.digits(terminator, false);
    const value = text.length > 15 ? Number.POSITIVE_INFINITY : Number(text);
    if (value > this.bytes.length) throw new SyntaxError("length past the input");
    return value;
  }

  expect(byte: number): void {
    if (this.bytes[this.position] !== byte) throw new SyntaxError("unexpected byte");
    this.position++;
  }

  /** `"<length bytes>"`: the bytes between the quotes. */
  quoted(length: number): Buffer {
    this.expect(QUOTE);
    const end = this.position + length;
    if (end > this.bytes.length) throw new SyntaxError("bad length");
    const text = this.bytes.subarray(this.position, end);
    this.position = end;
    this.expect(QUOTE);
    return text;
  }

  /** `S:<n>:"…";`'s text: `\xx` escapes are one byte each, and `n` counts the decoded bytes. */
  escaped(length: number): Buffer {
    this.expect(QUOTE);
    const out = Buffer.allocUnsafe(length);
    const { bytes } = this;
    for (let i = 0; i < length; i++) {
      let byte = bytes[this.position];
      if (byte === undefined) throw new SyntaxError("unterminated");
      if (byte === 0x5c) {
        const hex = bytes.toString("latin1", this.position + 1, this.position + 3);
        if (!/^[0-9a-f]{2}$/i.test(hex)) throw new SyntaxError("bad escape");
        byte = Number.parseInt(hex, 16);
        this.position += 3;
      } else this.position++;
      out[i] = byte;
    }
    this.expect(QUOTE);
    return out;
  }

  /** `d:…;` as PHP's unserializer accepts it: an integer, a decimal, either with an exponent, `INF`, `-INF` or `NAN`. */
  float(): number {
    const end = this.bytes.indexOf(SEMICOLON, this.position);
    if (end < 0) throw new SyntaxError("unterminated");
    const text = this.bytes.toString("latin1", this.position, end);
    this.position = end + 1;
    if (text === "INF") return Number.POSITIVE_INFINITY;
    if (text === "-INF") return Number.NEGATIVE_INFINITY;
    if (text === "NAN") return Number.NaN;
    // Each part can match a digit in one way only: a long run of digits cannot make it backtrack.
    if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(text)) throw new SyntaxError("bad float");
    return Number(text);
  }

  /** Adds nodes to what the built value expands to: a reference adds its target's whole size. */
  count(nodes: number): void {
    this.expanded += nodes;
    if (this.expanded > this.maxExpanded) throw new SyntaxError("references expand too far");
  }

  /** The value a reference names (`r:` and `R:`), or a refusal when it cannot be placed or would repeat without end. */
  referenced(slot: number): { value: PhpJson; size: number } {
    if (this.numberingLost) throw new SyntaxError("reference after a custom payload");
    const target = this.slots[slot];
    // Slot 0 does not exist; an open slot is an enclosing value: json_encode() refuses recursion too.
    if (slot < 1 || slot >= this.slots.length || target === undefined) throw new SyntaxError("bad reference");
    return target;
  }
}

/** A key as PHP keeps it in an array: a decimal string within PHP's integers is the integer. */
function arrayKey(key: string | number): string | number {
  if (typeof key === "number") return key;
  return /^(?:0|-?[1-9]\d{0,15})$/.test(key) && Number.isSafeInteger(Number(key)) ? Number(key) : key;
}

/** A finished array or object as `json_encode()` writes it: a list only for keys 0, 1, 2, … in order. */
function finish(frame: Frame): PhpJson {
  const members = frame.members!;
  if (!frame.object) {
    const keys = members.map(([key]) => arrayKey(key));
    if (keys.every((key, index) => key === index)) return members.map(([, value]) => value);
  }
  const object: { [key: string]: PhpJson } = {};
  for (const [key, value] of members) {
    // A private or protected property is written "\0Class\0name" or "\0*\0name": json_encode() leaves it out.
    if (frame.object && typeof key === "string" && key.startsWith("\0")) continue;
    // defineProperty, so a key named "__proto__" is data, not a prototype change.
    Object.defineProperty(object, String(arrayKey(key)), { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/**
 * Reads one value at the scanner's position, leaving the scanner after it; the value when building.
 * @throws SyntaxError when the bytes are not PHP's serialization.
 */
function scan(scanner: Scanner): PhpJson {
  const { bytes, build } = scanner;
  const stack: Frame[] = [];
  for (;;) {
    const top = stack[stack.length - 1];
    let value: PhpJson = null;
    let size = 1;
    if (top !== undefined && top.remaining === 0) {
      scanner.expect(CLOSE);
      stack.pop();
      value = build ? finish(top) : null;
      size = top.size;
      if (build) scanner.slots[top.slot] = { value, size };
    } else {
      const type = bytes[scanner.position];
      if (bytes[scanner.position + 1] !== (type === 0x4e ? SEMICOLON : COLON)) throw new SyntaxError("bad value");
      scanner.position += 2;
      // A member's key comes first: a string or an integer, never numbered.
      if (top !== undefined && top.remaining % 2 === 0) {
        top.key = readKey(scanner, type);
        top.remaining--;
        continue;
      }
      const slot = scanner.slots.length;
      switch (type) {
        case 0x4e: // N;
          break;
        case 0x62: {
          // b:0; b:1;
          const flag = scanner.digits(SEMICOLON, false);
          if (flag !== "0" && flag !== "1") throw new SyntaxError("bad boolean");
          value = flag === "1";
          break;
        }
        case 0x69: // i:42; of any size (PHP clamps what overflows)
          value = Number(scanner.digits(SEMICOLON, true));
          break;
        case 0x64: // d:0.5; d:INF; d:NAN;
          value = scanner.float();
          // json_encode() refuses INF and NAN; walking goes on.
          if (build && !Number.isFinite(value)) throw new SyntaxError("a float JSON cannot carry");
          break;
        case 0x73: // s:3:"abc"; (the length counts bytes)
          value = scanner.quoted(scanner.length(COLON)).toString("utf8");
          scanner.expect(SEMICOLON);
          break;
        case 0x53: // S:3:"\61bc";
          value = scanner.escaped(scanner.length(COLON)).toString("utf8");
          scanner.expect(SEMICOLON);
          break;
        case 0x45: // E:7:"Foo:Bar"; an enum case, which json_encode() writes only for a backed enum it knows
          scanner.quoted(scanner.length(COLON));
          scanner.expect(SEMICOLON);
          if (build) throw new SyntaxError("an enum JSON cannot carry");
          break;
        case 0x72: // r:3; a copy of an earlier value, numbered itself
        case 0x52: {
          // R:3; a PHP reference, not numbered
          const start = scanner.position;
          const number = Number(scanner.digits(SEMICOLON, false));
          scanner.references?.push([start, scanner.position - 1]);
          if (build) ({ value, size } = scanner.referenced(number));
          break;
        }
        case 0x61: // a:1:{…}
        case 0x4f: {
          // O:8:"stdClass":1:{…}
          if (type === 0x4f) {
            scanner.quoted(scanner.length(COLON));
            scanner.expect(COLON);
          }
          const count = scanner.length(COLON);
          scanner.expect(OPEN);
          if (build && stack.length >= MAX_DEPTH) throw new SyntaxError("too deep");
          scanner.count(1);
          scanner.numbered++;
          if (build) scanner.slots.push(undefined);
          stack.push({ object: type === 0x4f, remaining: count * 2, members: build ? [] : undefined, key: undefined, slot, size: 1 });
          continue;
        }
        case 0x43: {
          // C:11:"ArrayObject":21:{…} (Serializable: the braces hold that many bytes, in the class's own format)
          scanner.quoted(scanner.length(COLON));
          scanner.expect(COLON);
          const length = scanner.length(COLON);
          scanner.expect(OPEN);
          scanner.position += length;
          if (scanner.position > bytes.length) throw new SyntaxError("bad length");
          scanner.expect(CLOSE);
          // PHP numbered the values inside the payload: references after it cannot be placed.
          scanner.numberingLost = true;
          // What json_encode() writes for it depends on the class: no public property is known.
          value = {};
          break;
        }
        default:
          throw new SyntaxError("unsupported type");
      }
      scanner.count(size);
      if (type !== 0x52) scanner.numbered++;
      if (build && type !== 0x52) scanner.slots.push({ value, size });
    }
    const parent = stack[stack.length - 1];
    if (parent === undefined) return value;
    parent.size += size;
    parent.members?.push([parent.key!, value]);
    parent.remaining--;
  }
}

/** An array's or object's key: `i:` or a string, never numbered. */
function readKey(scanner: Scanner, type: number | undefined): string | number {
  if (type === 0x69) return Number(scanner.digits(SEMICOLON, true));
  const text = type === 0x73 ? scanner.quoted(scanner.length(COLON)) : type === 0x53 ? scanner.escaped(scanner.length(COLON)) : undefined;
  if (text === undefined) throw new SyntaxError("bad key");
  scanner.expect(SEMICOLON);
  return text.toString("utf8");
}

/**
 * Where the serialized value starting at `start` ends (the index after it), walking every type
 * PHP writes in linear time; `-1` when the bytes there are not one.
 */
export function skipPhpValue(bytes: Buffer, start: number): number {
  return walkPhpValue(bytes, start, false)?.end ?? -1;
}

/** A value walked: where it ends, how many values PHP numbered in it, and where its references' numbers are written. */
export interface WalkedPhpValue {
  readonly end: number;
  readonly numbered: number;
  /** `[start, end)` of each `r:`/`R:` number's digits, when asked for. */
  readonly references: ReadonlyArray<readonly [number, number]>;
  /** It holds a `C:` payload, whose values PHP numbered in a format only its class knows. */
  readonly custom: boolean;
}

/** Walks the value at `start` (see {@link skipPhpValue}); `null` when the bytes there are not one. */
export function walkPhpValue(bytes: Buffer, start: number, findReferences: boolean): WalkedPhpValue | null {
  const scanner = new Scanner(bytes, start, false, Number.POSITIVE_INFINITY);
  if (findReferences) scanner.references = [];
  try {
    scan(scanner);
  } catch {
    return null;
  }
  return { end: scanner.position, numbered: scanner.numbered, references: scanner.references ?? [], custom: scanner.numberingLost };
}

/**
 * One PHP-serialized value as `json_encode()` would give it, or {@link UNPARSEABLE} (what
 * json_encode() refuses: `INF`, `NAN`, enums, recursion, over 512 levels; and trailing bytes,
 * references past a `C:` payload, references that would expand past a bound). Integers beyond
 * 2^53 lose precision; objects keep their public properties.
 *
 * @example
 * ```ts
 * phpUnserialize('a:1:{s:7:"overlay";i:1;}'); // { overlay: 1 }
 * phpUnserialize("b:0;");                      // false
 * phpUnserialize('O:8:"stdClass":1:{s:1:"a";i:1;}'); // { a: 1 }
 * ```
 */
export function phpUnserialize(input: string | Buffer): PhpJson | typeof UNPARSEABLE {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  // References may repeat values, never beyond a few times the input's own size.
  const scanner = new Scanner(bytes, 0, true, 4 * bytes.length + 1024);
  try {
    const value = scan(scanner);
    return scanner.position === bytes.length ? value : UNPARSEABLE;
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
