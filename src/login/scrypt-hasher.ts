import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { z } from "zod";
import type { PasswordHasher } from "../types.js";
import { parseOptions } from "../validate.js";

const optionsSchema = z.strictObject({
  logN: z.number().int().min(10).max(20).optional(),
  r: z.number().int().min(1).max(32).optional(),
  p: z.number().int().min(1).max(16).optional(),
});

/** Options of {@link scryptHasher}; the defaults are OWASP's scrypt parameters. */
export interface ScryptHasherOptions {
  /**
   * log2 of the CPU/memory cost N.
   * @default 17
   */
  logN?: number;
  /**
   * Block size.
   * @default 8
   */
  r?: number;
  /**
   * Parallelism.
   * @default 1
   */
  p?: number;
}

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const HASH_PATTERN = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$/;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  // scrypt needs 128·N·r bytes; Node refuses above maxmem, so allow that plus headroom.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise((resolve, reject) => {
    // libuv's thread pool runs it: the event loop stays free while a login hashes.
    scryptCallback(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function b64(buffer: Buffer): string {
  // At most two "=" of padding: a bounded pattern cannot restart quadratically.
  return buffer.toString("base64").replace(/={1,2}$/, "");
}

/**
 * The default {@link PasswordHasher}: `node:crypto` scrypt off the event loop, PHC strings
 * (`$scrypt$ln=17,r=8,p=1$…`), NFKC-normalised passwords (NIST SP 800-63B); a hash with other
 * parameters `needsRehash`, so raising the cost upgrades users as they log in.
 *
 * @example
 * ```ts
 * const hasher = scryptHasher();            // OWASP parameters: N=2^17, r=8, p=1
 * const fast = scryptHasher({ logN: 12 });  // for tests only
 * ```
 * @throws TypeError when a parameter is out of range.
 */
export function scryptHasher(options: ScryptHasherOptions = {}): PasswordHasher {
  const { logN = 17, r = 8, p = 1 } = parseOptions(optionsSchema, options, "scryptHasher");
  const prefix = `$scrypt$ln=${logN},r=${r},p=${p}$`;

  return {
    async hash(password) {
      const salt = randomBytes(SALT_LENGTH);
      const key = await derive(password, salt, logN, r, p);
      return `${prefix}${b64(salt)}$${b64(key)}`;
    },
    async verify(hash, password) {
      const match = HASH_PATTERN.exec(hash);
      if (match === null) return false;
      const [, ln, blockSize, parallel, salt, expected] = match as unknown as [string, string, string, string, string, string];
      // A stored hash is data: refuse parameters that would let it cost unbounded CPU or memory.
      const parsed = optionsSchema.safeParse({ logN: Number(ln), r: Number(blockSize), p: Number(parallel) });
      if (!parsed.success) return false;
      const key = await derive(password, Buffer.from(salt, "base64"), Number(ln), Number(blockSize), Number(parallel));
      return timingSafeEqual(key, Buffer.from(expected, "base64"));
    },
    needsRehash(hash) {
      return !hash.startsWith(prefix) || !HASH_PATTERN.test(hash);
    },
    costClass(hash) {
      const match = HASH_PATTERN.exec(hash);
      return match === null ? "scrypt:invalid" : `scrypt:${match[1]}:${match[2]}:${match[3]}`;
    },
  };
}
