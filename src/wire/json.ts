/** JSON as Services wrote it (`json_encode`, `\/` put back): non-ASCII as lower-case `\uXXXX`, no newline. */
export function encodeJson(value: unknown): string {
  const json = JSON.stringify(value);
  // As many UTF-8 bytes as characters: all ASCII, nothing to escape, and the pattern need not scan it.
  if (Buffer.byteLength(json) === json.length) return json;
  return json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
