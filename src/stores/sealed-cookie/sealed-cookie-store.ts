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

/**
 * Options of {@link sealedCookieStore}.
 *
 * @example
 * ```ts
 * sealedCookieStore({ password: { 2: process.env.SEAL_KEY_2!, 1: process.env.SEAL_KEY_1! }, revocations: redisCounterStore({ client }) });
 * ```
 */
export interface SealedCookieStoreOptions {
  /**
   * The secret the session ids are sealed with (AES-256-CBC + HMAC-SHA-256, iron's
   * format), at least 32 characters. To rotate, pass numbered passwords, e.g.
   * `{ 2: newSecret, 1: oldSecret }`: ids are sealed with the highest number and
   * unsealed with whichever one they name, so old ids keep working until you drop it.
   */
  password: string | Readonly<Record<string, string>>;
  /**
   * Where revocations live: a per-user count per period for `destroyByUser`, and a mark
   * per ended session for `destroy`. With more than one instance, share it (the Redis
   * counter store).
   *
   * A `memoryCounterStore` lives in this process only. So over one, each id is sealed with
   * that store's random generation, and an id from another generation is refused: a
   * session works only on the instance that made it, and a restart ends every sealed
   * session (users log in again) rather than bring logged-out ones back.
   *
   * It must never drop a key before its TTL: a lost mark makes a logged-out session live
   * again. So a `memoryCounterStore` with its default `whenFull: "evict"` is refused;
   * pass `memoryCounterStore({ whenFull: "reject" })`, which refuses new marks when full
   * (a logout it refuses still ends the session, held in this process), and do not share
   * it with the login throttle, whose keys clients choose.
   * On Redis, the server must never evict: `maxmemory-policy noeviction` (Redis's
   * default) or no `maxmemory`. Every revocation key has a TTL, so any `volatile-*`
   * policy may evict it, as may any `allkeys-*` policy.
   */
  revocations: CounterStore;
  /**
   * The longest a session can live, in seconds: a seal is void this long after it was
   * made, whatever its record says. Keep it at or above `absoluteTimeout`.
   * Revocation marks are kept for up to twice this.
   * @default 2000000 (the default absoluteTimeout)
   */
  maxAgeSeconds?: number;
  /**
   * How many unsealed ids to keep in memory, so a busy session is decrypted once rather
   * than on every request. Expiry and revocation are still checked on every read.
   * @default 5000
   */
  cacheSize?: number;
  /**
   * Put before every revocation key in `revocations`.
   * @default "sealed:"
   */
  prefix?: string;
  /**
   * The most single-session logouts recorded for one user per period of `maxAgeSeconds`,
   * each a mark in `revocations`. Past it, a logout ends all that user's sessions instead
   * (one counter, however many logouts): one account's login and logout cycles cannot fill
   * the revocation store, which other users' logouts need. At most twice this many marks
   * per user are alive at once, each expiring with its session.
   * @default 32
   */
  maxMarksPerUser?: number;
}

// The key that seals every session: the same rule as the package's secret, at least.
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

// Browsers keep cookies up to 4096 bytes, name and attributes included; nothing longer
// can have come from this store, so it is refused before any decryption.
const MAX_SESSID_LENGTH = 4096;
const SESSID_PATTERN = /^[\w-]{43,}$/;
// What iron-session 8 and 9 append to every seal they make (`~` and their seal format).
const SEAL_VERSION_MARKER = "~2";

/**
 * A stateless {@link SessionStore}: the record is sealed into the session id itself (the
 * cookie value) with iron-session's `sealData`, so reading a session needs no shared
 * backend except a small revocation check. For apps that cannot run Redis, at the
 * cost of a large cookie (667 to 1634 characters, 838 with a typical browser) and these limits:
 *
 * - `touch` cannot rewrite a token the client holds: `lastSeenAt` and `expiresAt` stay
 *   as they were at login. Set `idleTimeout` equal to
 *   `absoluteTimeout`, or sessions end one idle period after login however active they
 *   are. A touch to an expiry in the past still ends the session.
 * - `listByUser` resolves `[]`: nothing lists the ids held by clients, so the
 *   `maxSessionsPerUser` cap cannot end older sessions on this store.
 * - `destroyByUser` works (every session sealed before it is void) but resolves `0`,
 *   as it cannot count them.
 * - `adopt` is absent: a Drupal session id cannot be turned into a sealed one.
 * - Over a `memoryCounterStore`, a restart ends every session (see `revocations`).
 *
 * Round trips to the revocation store: `get` 1 (two or three counters read in
 * parallel; none to decrypt), `create` 1, `destroy` 2, `destroyByUser` 1, `touch` 0.
 *
 * @example
 * ```ts
 * import { sealedCookieStore } from "services-session-auth/sealed-cookie";
 * import { redisCounterStore } from "services-session-auth/redis";
 *
 * const sessionStore = sealedCookieStore({
 *   password: process.env.SESSION_SECRET!, // 32+ characters
 *   revocations: redisCounterStore({ client }),
 * });
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

  // Revocations are counted per period of maxAgeSeconds. A seal lives at most one
  // period, so it spans its own period and perhaps the next: a count in its own period
  // above the one it was sealed with, or any count in the next, means it was revoked.
  // Each period's key outlives every seal that reads it, so a count never resets under
  // a live seal.
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
      // Only the exact string create() made: iron-session 9 ignores the version marker
      // after the MAC (8 refused most changes to it), and base64url decoding ignores spare
      // bits, so without this several ids would open the same seal.
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
    // Counted per user and period: past the budget, one counter ends every session of
    // the user, so no account's logouts can take more than their share of the store.
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
