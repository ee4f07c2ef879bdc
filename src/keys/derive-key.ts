import { hkdfSync } from "node:crypto";

/** What a derived key is for: each use has its own, so a value one use hands out is worthless to another. */
export type KeyPurpose = "csrf token" | "login names" | "device cookies";

/**
 * A 256-bit key for one purpose, HKDF-SHA256 from the secret: equal across instances, independent
 * of every other purpose's, so a MAC one reply carries tells nothing about another key.
 */
export function deriveKey(secret: string | Uint8Array, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "services-session-auth", purpose, 32));
}
