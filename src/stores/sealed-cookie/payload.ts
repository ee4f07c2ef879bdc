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
  /** A process-local revocation store's generation: a seal from another (before a restart) is void. */
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

/** The object handed to `sealData`. */
export function toWire(payload: SealedPayload): Record<string, unknown> {
  const wire: Record<string, unknown> = { v: 1, h: payload.id, t: payload.sealedAt, e: payload.epoch, r: payload.record };
  if (payload.generation !== undefined) wire.g = payload.generation;
  return wire;
}

/** The payload from an unsealed object, or `null` when this store did not seal it. */
export function fromWire(value: unknown): SealedPayload | null {
  const wire = wireSchema.safeParse(value);
  if (!wire.success) return null;
  const record = parseSessionRecord(wire.data.r);
  if (record === null) return null;
  return { id: wire.data.h, sealedAt: wire.data.t, epoch: wire.data.e, generation: wire.data.g, record };
}

/** A new sealed id: 128 random bits and the seal's deadline (`"q3…Zw.1767229200"`). */
export function createSealedId(deadline: number): string {
  return `${randomBytes(16).toString("base64url")}.${deadline}`;
}

/** A handle, `<sealed id>.<base64url uid>`: all `destroy` gets, so it carries the deadline and the user a revocation needs. */
export function sealedHandle(id: string, uid: string): string {
  return `${id}.${Buffer.from(uid, "utf8").toString("base64url")}`;
}

/** The parts of a handle, or `null` for one this store did not make. */
export function parseHandle(handle: string): { id: string; deadline: number; uid: string } | null {
  const match = /^([\w-]{22}\.(\d{1,12}))\.([\w-]+)$/.exec(handle);
  if (match === null) return null;
  const uid = Buffer.from(match[3]!, "base64url").toString("utf8");
  return uid === "" ? null : { id: match[1]!, deadline: Number(match[2]), uid };
}
