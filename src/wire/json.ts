/**
 * JSON as Drupal's Services JSON formatter writes it: PHP `json_encode` with no flags,
 * then `\/` put back to `/`. So every character above U+007F is a lower-case `\uXXXX`
 * escape, `/` stays bare and there is no trailing newline. Clients that compare bytes or
 * log bodies see exactly what they saw from Drupal.
 */
export function encodeJson(value: unknown): string {
  const json = JSON.stringify(value);
  // As many UTF-8 bytes as characters: all ASCII, nothing to escape, and the pattern need not scan it.
  if (Buffer.byteLength(json) === json.length) return json;
  return json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
