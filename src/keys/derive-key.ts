import { hkdfSync } from "node:crypto";

/** What a derived key is for: each use has its own, so a value one use hands out is worthless to another. */
export type KeyPurpose = "csrf token" | "login names" | "device cookies" | "one-time links" | "pass-reset tokens";

/** A 256-bit key for one purpose (HKDF-SHA256 from the secret), so a MAC under one key tells nothing of another. */
export function deriveKey(secret: string | Uint8Array, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "services-session-auth", purpose, 32));
}
