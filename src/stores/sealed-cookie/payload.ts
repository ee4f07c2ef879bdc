import { randomBytes } from "node:crypto";
import { z } from "zod";
import { parseSessionRecord } from "../../core/session-record.js";
import type { SessionRecord } from "../../types.js";

/** What is sealed into the session id. Short keys: every byte is sent on every request. */
export interface SealedPayload {
  /** The session's handle: random, plus the deadline after which the seal is void. */
  readonly handle: string;
  /** When it was sealed, in Unix seconds: picks the revocation period. */
  readonly sealedAt: number;
  /** The user's revocation count in that period when it was sealed. */
  readonly epoch: number;
  readonly record: SessionRecord;
}

const wireSchema = z.strictObject({
  v: z.literal(1),
  h: z.string().regex(/^[\w-]{22}\.\d+$/),
  t: z.number().int().nonnegative(),
  e: z.number().int().nonnegative(),
  r: z.unknown(),
});

/**
 * The object handed to `sealData`.
 *
 * @example
 * ```ts
 * const seal = await sealData(toWire(payload), { password });
 * ```
 */
export function toWire(payload: SealedPayload): Record<string, unknown> {
  return { v: 1, h: payload.handle, t: payload.sealedAt, e: payload.epoch, r: payload.record };
}

/**
 * The payload from an unsealed object, or `null` when it is not one this store sealed.
 *
 * @example
 * ```ts
 * const payload = fromWire(await unsealData(seal, { password })); // null for `{}`
 * ```
 */
export function fromWire(value: unknown): SealedPayload | null {
  const wire = wireSchema.safeParse(value);
  if (!wire.success) return null;
  const record = parseSessionRecord(wire.data.r);
  return record === null ? null : { handle: wire.data.h, sealedAt: wire.data.t, epoch: wire.data.e, record };
}

/**
 * A new handle: 128 random bits and the seal's deadline, e.g. `"q3…Zw.1767229200"`. The
 * deadline is in the handle so that `destroy(handle)`, which gets nothing else, can give
 * its revocation mark a TTL of exactly the session's remaining life.
 *
 * @example
 * ```ts
 * createHandle(1767229200); // "q3Jx…Zw.1767229200"
 * ```
 */
export function createHandle(deadline: number): string {
  return `${randomBytes(16).toString("base64url")}.${deadline}`;
}

/**
 * The deadline in a handle, or `null` for a handle this store did not make.
 *
 * @example
 * ```ts
 * handleDeadline("q3JxAAAAAAAAAAAAAAAAZw.1767229200"); // 1767229200
 * ```
 */
export function handleDeadline(handle: string): number | null {
  const match = /^[\w-]{22}\.(\d{1,12})$/.exec(handle);
  return match === null ? null : Number(match[1]);
}
