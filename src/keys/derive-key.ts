import { hkdfSync } from "node:crypto";

/** What a derived key is for: each use has its own, so a value one use hands out is worthless to another. */
export type KeyPurpose = "csrf token" | "login names" | "device cookies";

/**
 * A 256-bit key for one purpose, derived from the app's secret with HKDF-SHA256 (RFC 5869):
 * the same on every instance that shares the secret, and independent of every other
 * purpose's key, so a reply that carries a MAC under one key (the token call answers one for
 * any cookie value) tells nothing about another.
 */
export function deriveKey(secret: string | Uint8Array, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "services-session-auth", purpose, 32));
}
