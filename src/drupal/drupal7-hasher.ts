import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { safeEqual } from "../sessions/session-id.js";
import { parseOptions } from "../validate.js";
import type { PasswordHasher } from "../types.js";
import {
  DRUPAL_HASH_COUNT,
  DRUPAL_HASH_LENGTH,
  DRUPAL_ITOA64,
  DRUPAL_MAX_HASH_COUNT,
  DRUPAL_MAX_PASSWORD_LENGTH,
  DRUPAL_MIN_HASH_COUNT,
  drupalBase64Encode,
  drupalCrypt,
  parseDrupalSetting,
} from "./password-crypt.js";

/** Drupal allows 30 (over half an hour of CPU per check); 20, 32× Drupal's default, stops a hostile `users.pass` pinning a core. */
const DEFAULT_MAX_COUNT_LOG2 = 20;

const count = z.number().int().min(DRUPAL_MIN_HASH_COUNT).max(DRUPAL_MAX_HASH_COUNT);
const optionsSchema = z
  .strictObject({ countLog2: count.optional(), maxCountLog2: count.optional() })
  .refine((o) => (o.countLog2 ?? DRUPAL_HASH_COUNT) <= (o.maxCountLog2 ?? DEFAULT_MAX_COUNT_LOG2), {
    message: "countLog2 must not exceed maxCountLog2",
    path: ["countLog2"],
  });

/** Options of {@link drupal7Hasher}. */
export interface Drupal7HasherOptions {
  /**
   * The `count_log2` of hashes written, and below or above which a `$S$` hash `needsRehash` (Drupal's `password_count_log2`).
   * @default 15
   */
  countLog2?: number;
  /**
   * The largest `count_log2` a stored hash may have and still be checked (`verify` is `false` above it; Drupal's limit is 30).
   * @default 20
   */
  maxCountLog2?: number;
}

/**
 * A {@link PasswordHasher} that can tell its own hash formats apart from others.
 *
 * @example
 * ```ts
 * const legacy: LegacyPasswordHasher = drupal7Hasher();
 * legacy.recognizes("$S$DxVn7wubS…"); // true
 * ```
 */
export interface LegacyPasswordHasher extends PasswordHasher {
  /** Whether a stored hash is in one of this hasher's formats (cheap, no hashing). */
  recognizes(hash: string): boolean;
}

const RECOGNISED = /^U?\$[SHP]\$/;

/** Whether a hash is a valid `$S$` as Drupal 7's `user_hash_password()` writes it: what a store may write while Drupal still checks passwords. */
export function isDrupal7StoredHash(hash: string): boolean {
  return hash.startsWith("$S$") && hash.length === DRUPAL_HASH_LENGTH && parseDrupalSetting(hash) !== null;
}

function md5Hex(password: Buffer): Buffer {
  return Buffer.from(createHash("md5").update(password).digest("hex"), "latin1");
}

/**
 * Drupal 7's password hashes as `user_check_password()` checks them (`$S$`, `$P$`, `$H$`, `U$`),
 * writing `$S$` so a Drupal site still running can check them. UTF-8 bytes, Drupal's 512-byte
 * limit (`hash` throws a `RangeError`: keep the old hash); `verify` never rejects, compares in
 * constant time. Behaviour: docs/migrating-from-drupal-7.md#6-what-changes-for-clients.
 *
 * @example
 * ```ts
 * const hasher = drupal7Hasher();
 * await hasher.verify("$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI", "password1234"); // true
 * hasher.needsRehash("$P$DxTIL/YfZCdJtFYNh1Ef9ERbMBkuQ91"); // true: Drupal would rehash it too
 * ```
 * @throws TypeError when an option is out of range.
 */
export function drupal7Hasher(options: Drupal7HasherOptions = {}): LegacyPasswordHasher {
  const { countLog2 = DRUPAL_HASH_COUNT, maxCountLog2 = DEFAULT_MAX_COUNT_LOG2 } = parseOptions(optionsSchema, options, "drupal7Hasher");

  return {
    recognizes(hash) {
      return RECOGNISED.test(hash);
    },
    async hash(password) {
      if (typeof password !== "string") throw new TypeError("drupal7Hasher: the password must be a string");
      const bytes = Buffer.from(password, "utf8");
      if (bytes.length > DRUPAL_MAX_PASSWORD_LENGTH) throw new RangeError("drupal7Hasher: a password may be at most 512 bytes");
      // _password_generate_salt(): six random bytes make the eight salt characters.
      const setting = parseDrupalSetting(`$S$${DRUPAL_ITOA64[countLog2]}${drupalBase64Encode(randomBytes(6))}`);
      const hash = setting && (await drupalCrypt("sha512", bytes, setting));
      if (hash === null) throw new Error("drupal7Hasher: hashing failed");
      return hash;
    },
    async verify(hash, password) {
      // Callers from plain JavaScript may pass a column's null or a number: a failed check, not a crash.
      if (typeof hash !== "string" || typeof password !== "string") return false;
      let stored = hash;
      // user_check_password(): a U$ hash is checked against md5(password), so Drupal's byte
      // limit applies to the 32 hex characters, and a long password still verifies.
      let bytes: Buffer = Buffer.from(password, "utf8");
      if (stored.startsWith("U$")) {
        stored = stored.slice(1);
        bytes = md5Hex(bytes);
      }
      const prefix = stored.slice(0, 3);
      const algorithm = prefix === "$S$" ? "sha512" : prefix === "$H$" || prefix === "$P$" ? "md5" : null;
      if (algorithm === null) return false;
      const setting = parseDrupalSetting(stored);
      if (setting === null || setting.countLog2 > maxCountLog2) return false;
      const computed = await drupalCrypt(algorithm, bytes, setting);
      return computed !== null && safeEqual(computed, stored);
    },
    costClass(hash) {
      // The algorithm and its count character: `$S$D`, `$P$B`, `U$S$9`.
      if (!RECOGNISED.test(hash)) return "drupal7:invalid";
      return `drupal7:${hash.slice(0, hash.startsWith("U") ? 5 : 4)}`;
    },
    needsRehash(hash) {
      // user_needs_new_hash(): anything but a full-length $S$ at the configured cost.
      return !hash.startsWith("$S$") || hash.length !== DRUPAL_HASH_LENGTH || DRUPAL_ITOA64.indexOf(hash[3] ?? "") !== countLog2;
    },
  };
}
