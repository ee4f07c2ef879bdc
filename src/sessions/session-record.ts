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

/** A value read back from a store as a {@link SessionRecord}, or `null`: foreign or corrupt values are no session. */
export function parseSessionRecord(value: unknown): SessionRecord | null {
  const result = sessionRecordSchema.safeParse(value);
  return result.success ? result.data : null;
}

/** Parses a record from its JSON text; `null` for invalid JSON or a wrong shape. */
export function decodeSessionRecord(text: string): SessionRecord | null {
  try {
    return parseSessionRecord(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The JSON a store keeps for a record, keys in a fixed order so equal records give equal strings. */
export function encodeSessionRecord(record: SessionRecord): string {
  const { uid, createdAt, lastSeenAt, expiresAt, ip, userAgent } = record;
  return JSON.stringify({ uid, createdAt, lastSeenAt, expiresAt, ip, userAgent });
}
