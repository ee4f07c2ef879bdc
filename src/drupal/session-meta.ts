import { phpUnserialize, UNPARSEABLE } from "./php-unserialize.js";
import { phpSerializeRecord, sessionEntries, withSessionEntry } from "./php-session-data.js";

/**
 * What Drupal's `sessions` has no column for, kept in the row's own `$_SESSION['services_session_auth']`,
 * which Drupal's handler carries untouched (docs/running-beside-drupal-7.md#what-each-side-keeps-in-the-row).
 *
 * @module
 */

/** The `$_SESSION` key of the entry. */
export const META_KEY = "services_session_auth";

/** Characters of the session's handle kept in the entry: enough to tell the row it was written for. */
const TAG_LENGTH = 12;

/** The entry, as the store reads and writes it. */
export interface SessionMeta {
  /** The handle's first characters: an entry `drupal_session_regenerate()` carried into another session is ignored. */
  readonly tag: string;
  /** `SessionRecord.createdAt`: when the session began, for the absolute timeout. */
  readonly createdAt: number;
  /** `expiresAt - lastSeenAt` as last given: how long after `sessions.timestamp` the store may forget it. */
  readonly span: number;
  /** `SessionRecord.userAgent` (Drupal keeps none). */
  readonly userAgent: string;
  /** `SessionRecord.ip`: the address at login (Drupal's `hostname` is the last one). */
  readonly ip: string;
}

/** The tag of a handle (see {@link SessionMeta.tag}). */
export function tagOf(handle: string): string {
  return handle.slice(0, TAG_LENGTH);
}

/** The entry's serialized value (short keys: it travels with every Drupal request of the session). */
function serialized(meta: SessionMeta): string {
  return phpSerializeRecord({ v: 1, h: meta.tag, c: meta.createdAt, e: meta.span, a: meta.userAgent, i: meta.ip });
}

/** A new `$_SESSION` holding the entry alone: the `session` value of a row the store creates. */
export function newSessionData(meta: SessionMeta): Buffer {
  return Buffer.from(`${META_KEY}|${serialized(meta)}`, "utf8");
}

/** `$_SESSION` with the entry set and every other entry kept; `null` when the data cannot be walked. */
export function withMeta(data: Buffer, meta: SessionMeta): Buffer | null {
  return withSessionEntry(data, META_KEY, serialized(meta));
}

/** The row's entry, if a well-formed one was written for `handle`; else `null` (Drupal's session, another's entry, damage). */
export function readMeta(data: Buffer, handle: string): SessionMeta | null {
  if (data.length === 0) return null;
  const entry = sessionEntries(data)?.find((one) => one.name === META_KEY);
  if (entry === undefined) return null;
  const value = phpUnserialize(data.subarray(entry.valueStart, entry.end));
  if (value === UNPARSEABLE || value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const { v, h, c, e, a, i } = value;
  if (v !== 1 || h !== tagOf(handle) || !Number.isSafeInteger(c) || !Number.isSafeInteger(e) || typeof a !== "string" || typeof i !== "string") return null;
  return { tag: h, createdAt: c as number, span: e as number, userAgent: a, ip: i };
}
