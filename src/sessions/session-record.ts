import { z } from "zod";
import type { SessionRecord } from "../types.js";

const unixSeconds = z.number().int().nonnegative();

// Strict: a record read back from a shared backend (Redis, a sealed cookie) is only
// trusted when it has exactly the shape this package writes.
const sessionRecordSchema = z.strictObject({
  uid: z.string().min(1),
  createdAt: unixSeconds,
  lastSeenAt: unixSeconds,
  expiresAt: unixSeconds,
  ip: z.string(),
  userAgent: z.string(),
});

/**
 * Checks a value read back from a store against the {@link SessionRecord} shape. Stores
 * that serialise records (Redis, the sealed cookie) call it so that a foreign or corrupt
 * value reads as "no session" instead of reaching the core.
 *
 * @example
 * ```ts
 * const record = parseSessionRecord(JSON.parse(raw)); // null when the shape is wrong
 * ```
 */
export function parseSessionRecord(value: unknown): SessionRecord | null {
  const result = sessionRecordSchema.safeParse(value);
  return result.success ? result.data : null;
}

/**
 * Parses a record from its JSON text; `null` for invalid JSON or a wrong shape.
 *
 * @example
 * ```ts
 * const record = decodeSessionRecord(await client.get(key) ?? "");
 * ```
 */
export function decodeSessionRecord(text: string): SessionRecord | null {
  try {
    return parseSessionRecord(JSON.parse(text));
  } catch {
    return null;
  }
}

/**
 * The JSON text a store keeps for a record, with keys in a fixed order so equal records
 * serialise to equal strings.
 *
 * @example
 * ```ts
 * await client.set(key, encodeSessionRecord(record));
 * ```
 */
export function encodeSessionRecord(record: SessionRecord): string {
  const { uid, createdAt, lastSeenAt, expiresAt, ip, userAgent } = record;
  return JSON.stringify({ uid, createdAt, lastSeenAt, expiresAt, ip, userAgent });
}
