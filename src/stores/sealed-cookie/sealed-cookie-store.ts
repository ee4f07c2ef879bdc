import type * as IronSession from "iron-session";
import { z } from "zod";
import { nowSeconds } from "../../clock.js";
import { loadOptionalPeer } from "../optional-peer.js";
import { secretSchema } from "../../keys/secret.js";
import { parseOptions } from "../../validate.js";
import type { CounterStore, SessionStore } from "../../types.js";
import { evictsUnexpiredKeys } from "../memory-counter-store.js";
import { LruMap } from "./lru.js";
import { createSealedId, fromWire, parseHandle, sealedHandle, toWire, type SealedPayload } from "./payload.js";

/** Options of {@link sealedCookieStore}; each is explained in docs/scaling-out.md#sealed-cookie-stateless. */
export interface SealedCookieStoreOptions {
  /** The sealing secret (32+ characters); numbered passwords rotate: seal with the highest, unseal with the one named. */
  password: string | Readonly<Record<string, string>>;
  /** Where logouts are counted; must never drop a key before its TTL (an evicting memory store is refused). Share it across instances. */
  revocations: CounterStore;
  /**
   * The longest a session can live, in seconds (keep it ≥ `absoluteTimeout`); marks are kept up to twice this.
   * @default 2000000 (the default absoluteTimeout)
   */
  maxAgeSeconds?: number;
  /**
   * How many unsealed ids to keep in memory; expiry and revocation are still checked on every read.
   * @default 5000
   */
  cacheSize?: number;
  /**
   * Put before every revocation key in `revocations`.
   * @default "sealed:"
   */
  prefix?: string;
  /**
   * The most single-session logouts marked per user per `maxAgeSeconds`; past it a logout ends all
   * that user's sessions in one key, so one account cannot fill the revocation store.
   * @default 32
   */
  maxMarksPerUser?: number;
}

// At least the package secret's rule.
const secret = secretSchema;

const optionsSchema = z.strictObject({
  password: z.union([
    secret,
    z
      .record(z.string().regex(/^(0|[1-9]\d*)$/, "password ids must be whole numbers without leading zeros"), secret)
      .refine((passwords) => Object.keys(passwords).length > 0, "give at least one password"),
  ]),
  revocations: z
    .custom<CounterStore>(
      (value) => typeof value === "object" && value !== null && typeof (value as CounterStore).increment === "function",
      "expected a CounterStore",
    )
    // An evicting store would let anyone who can fill it undo logouts.
    .refine(
      (store) => !evictsUnexpiredKeys(store),
      'must never drop unexpired keys: use memoryCounterStore({ whenFull: "reject" }), not one that evicts when full',
    ),
  maxAgeSeconds: z.number().int().positive().optional(),
  cacheSize: z.number().int().nonnegative().optional(),
  prefix: z.string().optional(),
  maxMarksPerUser: z.number().int().positive().optional(),
});

// Browsers keep cookies up to 4096 bytes: nothing longer came from this store, refused before decrypting.
const MAX_SESSID_LENGTH = 4096;
const SESSID_PATTERN = /^[\w-]{43,}$/;
// What iron-session 8 and 9 append to every seal they make (`~` and their seal format).
const SEAL_VERSION_MARKER = "~2";

/**
 * A stateless {@link SessionStore}: the record is sealed into the session id (iron-session), so
 * reads need only a revocation check; a large cookie, no touch, no listing, no adopt.
 * Trade-offs, sizes and round trips: docs/scaling-out.md#sealed-cookie-stateless.
 *
 * @example
 * ```ts
 * const sessionStore = sealedCookieStore({ password: process.env.SESSION_SECRET!, revocations: redisCounterStore({ client }) });
 * ```
 * @throws TypeError when `iron-session` is not installed, the password is shorter than 32
 *   characters, `revocations` is a memory counter store that evicts when full, or an option
 *   is out of range.
 */
export function sealedCookieStore(options: SealedCookieStoreOptions): SessionStore {
  const { sealData, unsealData } = loadOptionalPeer<typeof IronSession>("iron-session", "sealedCookieStore (services-session-auth/sealed-cookie)");
  const parsed = parseOptions(optionsSchema, options, "sealedCookieStore");
  const { revocations, maxAgeSeconds = 2_000_000, cacheSize = 5000, prefix = "sealed:", maxMarksPerUser = 32 } = parsed;
  const generation = revocations.processLocal?.generation;
  // iron-session takes a string or a map of numbered passwords, and seals with the highest.
  const password = typeof parsed.password === "string" ? parsed.password : { ...parsed.password };
  const cache = new LruMap<string, SealedPayload>(cacheSize);

  // Revocations count per period of maxAgeSeconds: a seal spans its own period and perhaps the next,
  // so a higher count in its own or any in the next means revoked (docs/scaling-out.md).
  const periodOf = (at: number) => Math.floor(at / maxAgeSeconds);
  const userKey = (uid: string, period: number) => `${prefix}u:${uid}:${period}`;
  const marksKey = (uid: string, period: number) => `${prefix}n:${uid}:${period}`;
  const handleKey = (id: string) => `${prefix}h:${id}`;

  async function unseal(sessid: string): Promise<SealedPayload | null> {
    const cached = cache.get(sessid);
    if (cached !== undefined) return cached;
    let payload: SealedPayload | null;
    try {
      const seal = Buffer.from(sessid, "base64url").toString("utf8");
      // Only the exact string create() made: iron-session 9 ignores the marker after the MAC and
      // base64url ignores spare bits, so else several ids would open one seal.
      if (!seal.endsWith(SEAL_VERSION_MARKER) || Buffer.from(seal, "utf8").toString("base64url") !== sessid) return null;
      payload = fromWire(await unsealData(seal, { password, ttl: maxAgeSeconds }));
    } catch {
      // A malformed seal is a bad id, never a store failure.
      payload = null;
    }
    // Keyed by the exact string that was just verified: a hit is that same verified seal.
    if (payload !== null) cache.set(sessid, payload);
    return payload;
  }

  async function isRevoked({ id, sealedAt, epoch, record }: SealedPayload, now: number): Promise<boolean> {
    const sealedPeriod = periodOf(sealedAt);
    const checks = [revocations.get(handleKey(id)), revocations.get(userKey(record.uid, sealedPeriod))];
    if (periodOf(now) > sealedPeriod) checks.push(revocations.get(userKey(record.uid, sealedPeriod + 1)));
    const [ended = 0, sealedCount = 0, laterCount = 0] = await Promise.all(checks);
    return ended > 0 || sealedCount > epoch || laterCount > 0;
  }

  async function destroy(handle: string): Promise<void> {
    const parsed = parseHandle(handle);
    if (parsed === null) return;
    const now = nowSeconds();
    const remaining = parsed.deadline - now;
    if (remaining <= 0) return;
    const period = periodOf(now);
    // Past the per-user budget one counter ends all the user's sessions: no account fills the store.
    const marks = await revocations.increment(marksKey(parsed.uid, period), maxAgeSeconds);
    if (marks > maxMarksPerUser) await revocations.increment(userKey(parsed.uid, period), 2 * maxAgeSeconds);
    else await revocations.increment(handleKey(parsed.id), remaining);
  }

  const store: SessionStore = {
    // A seal outlives no more than this: the router refuses a longer absoluteTimeout.
    maxLifetime: maxAgeSeconds,
    // Over revocations kept in this process, a logout held here is as good as one recorded.
    ...(revocations.processLocal === undefined ? {} : { processLocal: revocations.processLocal }),
    async create(record) {
      const sealedAt = nowSeconds();
      const epoch = await revocations.get(userKey(record.uid, periodOf(sealedAt)));
      const id = createSealedId(Math.min(record.expiresAt, sealedAt + maxAgeSeconds));
      const seal = await sealData(toWire({ id, sealedAt, epoch, generation, record }), { password, ttl: maxAgeSeconds });
      return Buffer.from(seal, "utf8").toString("base64url");
    },
    async get(sessid) {
      if (sessid.length > MAX_SESSID_LENGTH || !SESSID_PATTERN.test(sessid)) return null;
      const payload = await unseal(sessid);
      // Sealed over another generation of a process-local revocation store: its logouts are gone.
      if (payload === null || payload.generation !== generation) return null;
      const now = nowSeconds();
      const deadline = Number(payload.id.slice(payload.id.indexOf(".") + 1));
      if (payload.record.expiresAt <= now || deadline <= now) return null;
      if (await isRevoked(payload, now)) return null;
      return { handle: sealedHandle(payload.id, payload.record.uid), record: payload.record };
    },
    async touch(handle, _lastSeenAt, expiresAt) {
      // A stateless token cannot be moved forward; it can only be ended.
      if (expiresAt <= nowSeconds()) await destroy(handle);
    },
    destroy,
    async listByUser() {
      return [];
    },
    async destroyByUser(uid) {
      const now = nowSeconds();
      await revocations.increment(userKey(uid, periodOf(now)), 2 * maxAgeSeconds);
      return 0;
    },
  };
  return store;
}
