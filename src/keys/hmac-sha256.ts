import { hash } from "node:crypto";

/** SHA-256's block size in bytes: HMAC pads its key to one block. */
const BLOCK = 64;

/** HMAC-SHA256 under one key with its padded blocks made once: two one-shot hashes per message, no `Hmac` object. */
export function hmacSha256(key: Uint8Array): (message: string) => Buffer {
  // A key longer than a block is hashed first (RFC 2104, section 2); the derived keys are 32 bytes.
  const k = key.length > BLOCK ? hash("sha256", key, "buffer") : key;
  const inner = Buffer.alloc(BLOCK, 0x36);
  const outer = Buffer.alloc(BLOCK, 0x5c);
  for (let i = 0; i < k.length; i++) {
    inner[i]! ^= k[i]!;
    outer[i]! ^= k[i]!;
  }
  return (message) => {
    const text = Buffer.from(message);
    const first = hash("sha256", Buffer.concat([inner, text], BLOCK + text.length), "buffer");
    return hash("sha256", Buffer.concat([outer, first], BLOCK + first.length), "buffer");
  };
}
