import { hmacSha256 } from "../keys/hmac-sha256.js";

/**
 * A login name as Drupal's MySQL collation (`utf8_general_ci`) compares it: accents and case
 * ignored, trailing spaces dropped. Two spellings that could name the same account share one
 * throttle counter, so an attacker cannot buy fresh guesses with `Demo`, `demo ` or `dëmo`,
 * and a name with no account is counted as one with an account would be.
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
 * The keyed hash that stands for a login name wherever it is kept (throttle keys, audit
 * events): 128 bits of `HMAC-SHA256(key, normalised name)`, base64url. It is given the user
 * store's key for the name (`UserStore.nameKey`) where the store has one, else the name; the
 * normalisation on top only ever joins keys, never splits one. Someone may type a password
 * into the name field; its hash cannot be reversed or looked up without the key.
 *
 * @example
 * ```ts
 * const hashName = loginNameHasher(nameKey); // a key derived from the secret for login names alone
 * hashName("Demo") === hashName("demo"); // true
 * ```
 */
export function loginNameHasher(key: Buffer): (name: string) => string {
  const mac = hmacSha256(key);
  return (name) => mac(normaliseLoginName(name)).toString("base64url").slice(0, 22);
}
