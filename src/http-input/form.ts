import { PHP_MAX_INPUT_VARS } from "./multipart.js";

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;
const decoder = new TextDecoder("utf-8");

/** A form body as PHP's `parse_str` fills `$_POST`, in one pass (docs/performance.md#client-input-in-linear-time). */
export function parseForm(raw: Uint8Array): Record<string, string> {
  const fields = new Map<string, string>();
  let pairs = 0;
  let start = 0;
  while (start <= raw.length && pairs < PHP_MAX_INPUT_VARS) {
    let end = raw.indexOf(AMPERSAND, start);
    if (end === -1) end = raw.length;
    if (end > start) {
      let equals = raw.indexOf(EQUALS, start);
      if (equals === -1 || equals > end) equals = end;
      fields.set(decodeComponent(raw, start, equals), decodeComponent(raw, Math.min(equals + 1, end), end));
      pairs += 1;
    }
    start = end + 1;
  }
  // A Map, then fromEntries: a field named __proto__ becomes a plain key, never the prototype.
  return Object.fromEntries(fields);
}

/** `raw[from, to)` with `+` as a space and `%XX` as the byte it names (a `%` not followed by two hex digits stays), read as UTF-8. */
function decodeComponent(raw: Uint8Array, from: number, to: number): string {
  const bytes = new Uint8Array(to - from);
  let length = 0;
  for (let i = from; i < to; i++) {
    const byte = raw[i]!;
    if (byte === PLUS) {
      bytes[length++] = SPACE;
    } else if (byte === PERCENT && i + 2 < to && isHex(raw[i + 1]!) && isHex(raw[i + 2]!)) {
      bytes[length++] = (hexValue(raw[i + 1]!) << 4) | hexValue(raw[i + 2]!);
      i += 2;
    } else {
      bytes[length++] = byte;
    }
  }
  return decoder.decode(bytes.subarray(0, length));
}

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function hexValue(byte: number): number {
  return byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x61 + 10;
}
