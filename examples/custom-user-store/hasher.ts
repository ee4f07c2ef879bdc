import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { PasswordHasher } from "services-session-auth";

// The team's hashes, as Node's documentation makes them: "<salt hex>:<key hex>", from
// scrypt(password, salt, 64) with Node's default cost (N = 16384, r = 8, p = 1).
const FORMAT = /^([0-9a-f]{32}):([0-9a-f]{128})$/;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, 64, (error, key) => (error ? reject(error) : resolve(key))));
}

/** A PasswordHasher for the hashes already in the team's table. */
export function teamHasher(): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(16);
      return `${salt.toString("hex")}:${(await derive(password, salt)).toString("hex")}`;
    },
    async verify(hash, password) {
      const match = FORMAT.exec(hash);
      if (match === null) return false; // a malformed hash is a failed login, never an error
      const key = await derive(password, Buffer.from(match[1]!, "hex"));
      return timingSafeEqual(key, Buffer.from(match[2]!, "hex"));
    },
    needsRehash: (hash) => !FORMAT.test(hash),
    // One cost for every hash of this format: a login for an unknown name costs the same work.
    costClass: () => "team-scrypt:14:8:1",
  };
}
