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

/**
 * The default cap on a stored hash's `count_log2`. Drupal allows up to 30 (2^30 SHA-512
 * rounds, over half an hour of CPU here), so one hostile or corrupt `users.pass` row could
 * pin a core per login attempt. 20 is 32 times Drupal's default cost (about 2 s here),
 * well above anything a site would have configured in practice.
 */
const DEFAULT_MAX_COUNT_LOG2 = 20;

const count = z.number().int().min(DRUPAL_MIN_HASH_COUNT).max(DRUPAL_MAX_HASH_COUNT);
const optionsSchema = z
  .strictObject({ countLog2: count.optional(), maxCountLog2: count.optional() })
  .refine((o) => (o.countLog2 ?? DRUPAL_HASH_COUNT) <= (o.maxCountLog2 ?? DEFAULT_MAX_COUNT_LOG2), {
    message: "countLog2 must not exceed maxCountLog2",
    path: ["countLog2"],
  });

/**
 * Options of {@link drupal7Hasher}.
 *
 * @example
 * ```ts
 * drupal7Hasher({ countLog2: 15 }); // Drupal 7's own DRUPAL_HASH_COUNT
 * ```
 */
export interface Drupal7HasherOptions {
  /**
   * The `count_log2` of hashes this hasher writes, and below which (or above which) a
   * stored `$S$` hash `needsRehash`: Drupal's `password_count_log2` variable.
   * @default 15
   */
  countLog2?: number;
  /**
   * The largest `count_log2` a stored hash may have and still be checked; above it,
   * `verify` resolves `false` without hashing. Drupal's own limit is 30; raise this only if
   * the site really stored hashes that costly.
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

/**
 * Whether a hash is one Drupal 7's `user_hash_password()` writes: `$S$`, its full length, a
 * cost Drupal accepts. What a store may write while Drupal still checks the same passwords.
 */
export function isDrupal7StoredHash(hash: string): boolean {
  return hash.startsWith("$S$") && hash.length === DRUPAL_HASH_LENGTH && parseDrupalSetting(hash) !== null;
}

function md5Hex(password: Buffer): Buffer {
  return Buffer.from(createHash("md5").update(password).digest("hex"), "latin1");
}

/**
 * Drupal 7's password hashes, as `user_check_password()` in `includes/password.inc`
 * checks them: `$S$` (SHA-512, 2^n rounds, 55 characters), `$P$` and `$H$` (phpass MD5,
 * 34 characters) and `U$` (a Drupal 6 MD5 hash stretched by `user_update_7000`: the
 * password is MD5-hex'd first). New hashes are `$S$` with {@link Drupal7HasherOptions.countLog2},
 * which is what keeps a still-running Drupal site able to check them during a parallel run.
 *
 * Passwords are hashed as their UTF-8 bytes with no normalisation, as PHP does. Drupal's
 * 512-byte limit applies where Drupal applies it, in `_password_crypt()`: a longer password
 * never verifies against `$S$`, `$P$` or `$H$`, but does against `U$`, whose password is
 * MD5-hex'd first. `hash` rejects such a password with a `RangeError`, as Drupal's
 * `user_hash_password()` returns FALSE: Drupal then leaves the stored hash as it is and the
 * login goes on, so a login's rehash must treat that rejection as "keep the old hash".
 * `verify` resolves `false` for anything it cannot check and never rejects. The comparison
 * is constant-time.
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
