import { hmacSha256 } from "../keys/hmac-sha256.js";

/**
 * A login name as MySQL's `utf8_general_ci` compares it (accents, case and trailing spaces
 * ignored), so `Demo`, `demo ` and `dëmo` share one throttle count and buy no fresh guesses.
 *
 * @example
 * ```ts
 * normaliseLoginName("Dëmo  "); // "demo"
 * ```
 */
export function normaliseLoginName(name: string): string {
  let end = name.length;
  // PAD SPACE: only U+0020 is ignored at the end, not other white space.
  while (end > 0 && name.charCodeAt(end - 1) === 0x20) end -= 1;
  const kept = name.slice(0, end);
  // ASCII (one UTF-8 byte a character) has nothing to decompose and no marks: only its case folds.
  if (Buffer.byteLength(kept) === kept.length) return kept.toLowerCase();
  return kept.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * The keyed hash that stands for a login name in throttle keys and audit events (128 bits of
 * HMAC-SHA256 of the normalised store key), so a password typed as a name is never kept.
 *
 */
export function loginNameHasher(key: Buffer): (name: string) => string {
  const mac = hmacSha256(key);
  return (name) => mac(normaliseLoginName(name)).toString("base64url").slice(0, 22);
}
