import { createHash } from "node:crypto";

/** The 64-character alphabet of `_password_itoa64()`: not RFC 4648's order. */
export const DRUPAL_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `DRUPAL_MIN_HASH_COUNT`: the smallest `count_log2` Drupal accepts. */
export const DRUPAL_MIN_HASH_COUNT = 7;
/** `DRUPAL_MAX_HASH_COUNT`: the largest `count_log2` Drupal accepts. */
export const DRUPAL_MAX_HASH_COUNT = 30;
/** `DRUPAL_HASH_COUNT`: the `count_log2` of a fresh Drupal 7 hash (`$S$D…`). */
export const DRUPAL_HASH_COUNT = 15;
/** `DRUPAL_MAX_PASSWORD_LENGTH`: longer passwords (in UTF-8 bytes) never verify. */
export const DRUPAL_MAX_PASSWORD_LENGTH = 512;
/** `DRUPAL_HASH_LENGTH`: a `$S$` hash is cut to this many characters. */
export const DRUPAL_HASH_LENGTH = 55;

/** Rounds run between two yields to the event loop: about 2 ms of work on a small server. */
const ROUNDS_PER_SLICE = 1024;

/** `_password_base64_encode()`: three bytes at a time, little-endian, six bits out lowest first; no padding. */
export function drupalBase64Encode(input: Uint8Array): string {
  let out = "";
  for (let i = 0; i < input.length; i += 3) {
    const remaining = input.length - i;
    const value = (input[i] ?? 0) | ((input[i + 1] ?? 0) << 8) | ((input[i + 2] ?? 0) << 16);
    // n bytes carry 8n bits, which need n + 1 six-bit characters.
    const chars = Math.min(remaining, 3) + 1;
    for (let c = 0; c < chars; c++) out += DRUPAL_ITOA64[(value >> (6 * c)) & 0x3f];
  }
  return out;
}

/** The parts of a hash's 12-character setting (`$S$` + count + 8 salt characters). */
export interface DrupalHashSetting {
  readonly setting: string;
  readonly countLog2: number;
  readonly salt: string;
}

/** A stored hash's setting as `_password_crypt()` reads it, or `null` where Drupal returns FALSE. */
export function parseDrupalSetting(hash: string): DrupalHashSetting | null {
  const setting = hash.slice(0, 12);
  if (setting[0] !== "$" || setting[2] !== "$") return null;
  // PHP slices bytes, we slice UTF-16 units: they agree only on ASCII, which every hash
  // Drupal wrote is. A non-ASCII setting is damaged data, so refuse it outright.
  if (!/^[\x21-\x7e]{12}$/.test(setting)) return null;
  const countLog2 = DRUPAL_ITOA64.indexOf(setting[3] ?? "");
  if (countLog2 < DRUPAL_MIN_HASH_COUNT || countLog2 > DRUPAL_MAX_HASH_COUNT) return null;
  const salt = setting.slice(4, 12);
  if (salt.length !== 8) return null;
  return { setting, countLog2, salt };
}

/**
 * `_password_crypt(algo, password, setting)`, `null` where Drupal returns FALSE. Yields to the
 * event loop every {@link ROUNDS_PER_SLICE} rounds (docs/performance.md#drupal-7-hashes-on-the-event-loop).
 *
 * @param password - The password's bytes exactly as PHP sees them (UTF-8, not normalised).
 */
export async function drupalCrypt(algorithm: "sha512" | "md5", password: Buffer, setting: DrupalHashSetting): Promise<string | null> {
  if (password.length > DRUPAL_MAX_PASSWORD_LENGTH) return null;
  let hash = createHash(algorithm).update(setting.salt, "latin1").update(password).digest();
  let rounds = 2 ** setting.countLog2;
  while (rounds > 0) {
    const slice = Math.min(rounds, ROUNDS_PER_SLICE);
    for (let i = 0; i < slice; i++) hash = createHash(algorithm).update(hash).update(password).digest();
    rounds -= slice;
    if (rounds > 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const out = setting.setting + drupalBase64Encode(hash);
  // Drupal's own sanity check: 12 + ceil(8 * digest bytes / 6) characters.
  if (out.length !== 12 + Math.ceil((8 * hash.length) / 6)) return null;
  return out.slice(0, DRUPAL_HASH_LENGTH);
}
