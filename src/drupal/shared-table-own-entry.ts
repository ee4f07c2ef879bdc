import { phpUnserialize, skipPhpValue, UNPARSEABLE } from "./php-unserialize.js";
import { phpSerializeRecord, planSessionEntry, sessionEntries, type EntryPlan } from "./php-session-data.js";

/**
 * What Drupal's `sessions` has no column for, kept in the row's own `$_SESSION['services_session_auth']`,
 * which Drupal's handler carries untouched (docs/running-beside-drupal-7.md#what-each-side-keeps-in-the-row).
 * The entry always holds six scalars, so PHP numbers as many values in it whatever it says, and
 * putting it back in place never moves a reference.
 *
 * @module
 */

/** The `$_SESSION` key of the entry. */
export const META_KEY = "services_session_auth";

/** The bytes the entry's name and separator take: where its value starts when it is first. */
const META_PREFIX = Buffer.from(`${META_KEY}|`, "latin1");

/** Characters of the session's handle kept in the entry: enough to tell the row it was written for. */
const TAG_LENGTH = 12;

/** The longest user agent and address kept: the entry stays within the bytes a read brings. */
const MAX_USER_AGENT = 256;
const MAX_IP = 128;

/** The entry, as the store reads and writes it. */
export interface SessionMeta {
  /** Where the session began: `here` (a login on the app), or `drupal` (a session Drupal made, first read here). */
  readonly origin: "here" | "drupal";
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

/** The entry's serialized value (short keys: it travels with every Drupal request of the session); `v` 1 began here, 2 on Drupal. */
export function serializedMeta(meta: SessionMeta): string {
  return phpSerializeRecord({
    v: meta.origin === "here" ? 1 : 2,
    h: meta.tag,
    c: meta.createdAt,
    e: meta.span,
    a: meta.userAgent.slice(0, MAX_USER_AGENT),
    i: meta.ip.slice(0, MAX_IP),
  });
}

/** A new `$_SESSION` holding the entry alone: the `session` value of a row the store creates. */
export function newSessionData(meta: SessionMeta): Buffer {
  return Buffer.from(`${META_KEY}|${serializedMeta(meta)}`, "utf8");
}

/** How to set the entry in `data` (see {@link planSessionEntry}); `null` when the data cannot be walked. */
export function metaPlan(data: Buffer, meta: SessionMeta): EntryPlan | null {
  return planSessionEntry(data, META_KEY, serializedMeta(meta));
}

/** The entry's value read from bytes, if it is one of the package's and carries one of `tags`. */
function metaFrom(value: Buffer, tags: readonly string[]): SessionMeta | null {
  const read = phpUnserialize(value);
  if (read === UNPARSEABLE || read === null || typeof read !== "object" || Array.isArray(read)) return null;
  const { v, h, c, e, a, i } = read;
  if ((v !== 1 && v !== 2) || typeof h !== "string" || !tags.includes(h)) return null;
  if (!Number.isSafeInteger(c) || !Number.isSafeInteger(e) || typeof a !== "string" || typeof i !== "string") return null;
  return { origin: v === 1 ? "here" : "drupal", tag: h, createdAt: c as number, span: e as number, userAgent: a, ip: i };
}

/**
 * The entry when it is the first of `head` (the first bytes of `$_SESSION`, where the store writes
 * it), for one of `tags`; `null` when it is not there (it may be further on), damaged or another
 * session's. Also where it ends, for putting it back in place.
 */
export function metaAtHead(head: Buffer, tags: readonly string[]): { meta: SessionMeta; end: number } | null {
  if (head.length <= META_PREFIX.length || !head.subarray(0, META_PREFIX.length).equals(META_PREFIX)) return null;
  // Walked alone: whatever follows it may be cut off at the head's end.
  const end = skipPhpValue(head, META_PREFIX.length);
  if (end < 0) return null;
  const meta = metaFrom(head.subarray(META_PREFIX.length, end), tags);
  return meta === null ? null : { meta, end };
}

/** The entry anywhere in a whole `$_SESSION`, for one of `tags`; `null` when there is none (a session Drupal made, another's, damage). */
export function metaIn(data: Buffer, tags: readonly string[]): SessionMeta | null {
  if (data.length === 0) return null;
  const entry = sessionEntries(data)?.find((one) => one.name === META_KEY);
  return entry === undefined ? null : metaFrom(data.subarray(entry.valueStart, entry.end), tags);
}
