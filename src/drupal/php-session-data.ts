/**
 * `$_SESSION` as Drupal 7 keeps it in `sessions.session` (PHP's `php` serializer). Only the top
 * level is walked, by the lengths PHP wrote, so text inside a value never passes for an entry.
 *
 * @module
 */

/** Deeper nesting than this is refused, so the walk stays bounded. */
const MAX_DEPTH = 64;

/** One top-level `$_SESSION` entry: where its name starts, and where its value starts and ends. */
export interface SessionEntry {
  readonly name: string;
  readonly start: number;
  readonly valueStart: number;
  readonly end: number;
}

class Walker {
  position: number;
  constructor(
    readonly bytes: Buffer,
    start: number,
  ) {
    this.position = start;
  }

  /** The digits up to `terminator`, as a number; moves past the terminator. */
  number(terminator: number, signed: boolean): number {
    let end = this.position;
    if (signed && (this.bytes[end] === 0x2d || this.bytes[end] === 0x2b)) end++;
    const digits = end;
    while (end < this.bytes.length && this.bytes[end]! >= 0x30 && this.bytes[end]! <= 0x39) end++;
    if (end === digits || end - digits > 15 || this.bytes[end] !== terminator) throw new SyntaxError("bad number");
    const value = Number(this.bytes.toString("latin1", this.position, end));
    this.position = end + 1;
    return value;
  }

  expect(byte: number): void {
    if (this.bytes[this.position] !== byte) throw new SyntaxError("unexpected byte");
    this.position++;
  }

  /** Moves past the next `;`, for a scalar whose text is not needed (`d:`). */
  toSemicolon(): void {
    const end = this.bytes.indexOf(0x3b, this.position);
    if (end < 0) throw new SyntaxError("unterminated");
    this.position = end + 1;
  }

  /** `<length>:"<bytes>"`, as strings, class names and enum names are written. */
  quoted(): void {
    const length = this.number(0x3a, false);
    this.expect(0x22);
    this.position += length;
    if (this.position > this.bytes.length) throw new SyntaxError("bad length");
    this.expect(0x22);
  }

  /** `<count>:{` then `count` key/value pairs then `}`. */
  members(depth: number): void {
    const count = this.number(0x3a, false);
    this.expect(0x7b);
    for (let i = 0; i < count * 2; i++) this.value(depth + 1);
    this.expect(0x7d);
  }

  /** Moves past one serialized value of any type PHP writes. */
  value(depth: number): void {
    if (depth > MAX_DEPTH) throw new SyntaxError("too deep");
    const type = this.bytes[this.position];
    if (this.bytes[this.position + 1] !== (type === 0x4e ? 0x3b : 0x3a)) throw new SyntaxError("bad value");
    this.position += 2;
    switch (type) {
      case 0x4e: // N;
        return;
      case 0x62: // b:0;
      case 0x69: // i:42;
      case 0x72: // r:3;
      case 0x52: // R:3;
        this.number(0x3b, true);
        return;
      case 0x64: // d:0.5;
        this.toSemicolon();
        return;
      case 0x73: // s:3:"abc";
      case 0x45: // E:7:"Foo:Bar"; (an enum case)
        this.quoted();
        this.expect(0x3b);
        return;
      case 0x61: // a:1:{…}
        this.members(depth);
        return;
      case 0x4f: // O:8:"stdClass":1:{…}
        this.quoted();
        this.expect(0x3a);
        this.members(depth);
        return;
      case 0x43: {
        // C:11:"ArrayObject":21:{…} (Serializable: the braces hold that many bytes)
        this.quoted();
        this.expect(0x3a);
        const length = this.number(0x3a, false);
        this.expect(0x7b);
        this.position += length;
        if (this.position > this.bytes.length) throw new SyntaxError("bad length");
        this.expect(0x7d);
        return;
      }
      default:
        throw new SyntaxError("unsupported type");
    }
  }
}

/** The top-level entries of a `$_SESSION` serialization in order, or `null` when PHP's `php` serializer did not write it. */
export function sessionEntries(bytes: Buffer): SessionEntry[] | null {
  const entries: SessionEntry[] = [];
  let position = 0;
  try {
    while (position < bytes.length) {
      const bar = bytes.indexOf(0x7c, position);
      if (bar < 0) return null;
      const walker = new Walker(bytes, bar + 1);
      walker.value(0);
      entries.push({ name: bytes.toString("utf8", position, bar), start: position, valueStart: bar + 1, end: walker.position });
      position = walker.position;
    }
  } catch {
    return null;
  }
  return entries;
}

/** A PHP scalar or a flat array of them: all that the entries this package writes hold. */
export type PhpScalarRecord = Readonly<Record<string, string | number>>;

/** `serialize()` of a flat array of strings and integers, as PHP writes it (string lengths in UTF-8 bytes). */
export function phpSerializeRecord(record: PhpScalarRecord): string {
  const item = (value: string | number) => (typeof value === "number" ? `i:${Math.trunc(value)};` : `s:${Buffer.byteLength(value, "utf8")}:"${value}";`);
  const members = Object.entries(record).map(([key, value]) => item(key) + item(value));
  return `a:${members.length}:{${members.join("")}}`;
}

/**
 * `$_SESSION` with entry `name` set to `value` (serialized), replaced in place or put first, the rest
 * byte for byte; `null` when `bytes` cannot be walked, so nothing overwrites unreadable data.
 *
 * @example
 * ```ts
 * withSessionEntry(Buffer.from("messages|a:0:{}"), "mine", "i:1;"); // "mine|i:1;messages|a:0:{}"
 * ```
 */
export function withSessionEntry(bytes: Buffer, name: string, value: string): Buffer | null {
  if (name.includes("|")) throw new TypeError("a $_SESSION entry's name cannot contain |");
  const entries = sessionEntries(bytes);
  if (entries === null) return null;
  const own = Buffer.from(`${name}|${value}`, "utf8");
  const found = entries.find((entry) => entry.name === name);
  if (found === undefined) return Buffer.concat([own, bytes]);
  return Buffer.concat([bytes.subarray(0, found.start), own, bytes.subarray(found.end)]);
}
