/**
 * PHP's `serialize()` of a value as Drupal keeps it in `users.data` (what `unserialize()` gave the
 * store back): null, booleans, integers, floats, strings (their UTF-8 bytes counted), and arrays
 * (a JSON array as a list, an object by its keys, integer-like keys as integers).
 */
export function phpSerialize(value: unknown): string {
  if (value === null || value === undefined) return "N;";
  if (typeof value === "boolean") return `b:${value ? 1 : 0};`;
  if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) return `i:${value};`;
    if (Number.isNaN(value)) return "d:NAN;";
    if (!Number.isFinite(value)) return value > 0 ? "d:INF;" : "d:-INF;";
    return `d:${phpFloat(value)};`;
  }
  if (typeof value === "bigint") return `i:${value};`;
  if (typeof value === "string") return `s:${Buffer.byteLength(value, "utf8")}:"${value}";`;
  if (Array.isArray(value)) return array(value.map((item, index) => [index, item]));
  if (typeof value === "object") return array(Object.entries(value as Record<string, unknown>).map(([key, item]) => [arrayKey(key), item]));
  return "N;";
}

function array(entries: ReadonlyArray<readonly [string | number, unknown]>): string {
  const body = entries.map(([key, item]) => `${typeof key === "number" ? `i:${key};` : phpSerialize(key)}${phpSerialize(item)}`).join("");
  return `a:${entries.length}:{${body}}`;
}

/** PHP turns a decimal integer string key into an integer key. */
function arrayKey(key: string): string | number {
  return /^(?:0|-?[1-9]\d{0,17})$/.test(key) && Number.isSafeInteger(Number(key)) ? Number(key) : key;
}

/** A float as PHP 7.1+ serializes it (`serialize_precision = -1`): the shortest round-trip form, PHP's exponent spelling. */
function phpFloat(value: number): string {
  const text = String(value);
  const exponent = text.indexOf("e");
  if (exponent === -1) return text;
  const mantissa = text.slice(0, exponent);
  const power = text.slice(exponent + 1);
  return `${mantissa.includes(".") ? mantissa : `${mantissa}.0`}E${power.startsWith("-") ? power : `+${power}`}`;
}
