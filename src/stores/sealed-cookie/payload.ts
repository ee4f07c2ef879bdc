import { randomBytes } from "node:crypto";
import { z } from "zod";
import { parseSessionRecord } from "../../sessions/session-record.js";
import type { SessionRecord } from "../../types.js";

/** What is sealed into the session id. Short keys: every byte is sent on every request. */
export interface SealedPayload {
  /** The session's sealed id: random, plus the deadline after which the seal is void. */
  readonly id: string;
  /** When it was sealed, in Unix seconds: picks the revocation period. */
  readonly sealedAt: number;
  /** The user's revocation count in that period when it was sealed. */
  readonly epoch: number;
  /**
   * The revocation store's generation when that store lives in this process's memory: a
   * seal from another generation (made before a restart) is void. Absent for a shared store.
   */
  readonly generation: string | undefined;
  readonly record: SessionRecord;
}

const wireSchema = z.strictObject({
  v: z.literal(1),
  h: z.string().regex(/^[\w-]{22}\.\d+$/),
  t: z.number().int().nonnegative(),
  e: z.number().int().nonnegative(),
  g: z.string().optional(),
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
  const wire: Record<string, unknown> = { v: 1, h: payload.id, t: payload.sealedAt, e: payload.epoch, r: payload.record };
  if (payload.generation !== undefined) wire.g = payload.generation;
  return wire;
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
  if (record === null) return null;
  return { id: wire.data.h, sealedAt: wire.data.t, epoch: wire.data.e, generation: wire.data.g, record };
}

/**
 * A new sealed id: 128 random bits and the seal's deadline, e.g. `"q3…Zw.1767229200"`.
 *
 * @example
 * ```ts
 * createSealedId(1767229200); // "q3Jx…Zw.1767229200"
 * ```
 */
export function createSealedId(deadline: number): string {
  return `${randomBytes(16).toString("base64url")}.${deadline}`;
}

/**
 * A session's handle: its sealed id and its user's uid (base64url), e.g.
 * `"q3…Zw.1767229200.MTQ"`. `destroy(handle)` gets nothing else, so the handle carries
 * what a revocation needs: the deadline (the mark's TTL) and the user (whose marks are counted).
 *
 * @example
 * ```ts
 * sealedHandle("q3JxAAAAAAAAAAAAAAAAZw.1767229200", "14"); // "q3JxAAAAAAAAAAAAAAAAZw.1767229200.MTQ"
 * ```
 */
export function sealedHandle(id: string, uid: string): string {
  return `${id}.${Buffer.from(uid, "utf8").toString("base64url")}`;
}

/**
 * The parts of a handle, or `null` for a handle this store did not make.
 *
 * @example
 * ```ts
 * parseHandle("q3JxAAAAAAAAAAAAAAAAZw.1767229200.MTQ"); // { id: "q3Jx….1767229200", deadline: 1767229200, uid: "14" }
 * ```
 */
export function parseHandle(handle: string): { id: string; deadline: number; uid: string } | null {
  const match = /^([\w-]{22}\.(\d{1,12}))\.([\w-]+)$/.exec(handle);
  if (match === null) return null;
  const uid = Buffer.from(match[3]!, "base64url").toString("utf8");
  return uid === "" ? null : { id: match[1]!, deadline: Number(match[2]), uid };
}
