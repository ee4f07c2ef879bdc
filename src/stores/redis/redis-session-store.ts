import { z } from "zod";
import { nowSeconds } from "../../clock.js";
import { createSessionId, hashSessionId, isSessionIdShape } from "../../sessions/session-id.js";
import { decodeSessionRecord, encodeSessionRecord } from "../../sessions/session-record.js";
import { parseOptions } from "../../validate.js";
import { redisClientSchema } from "./client-option.js";
import type { SessionRecord, SessionStore, StoredSession } from "../../types.js";
import { isClusterClient, type RedisClientLike, type RedisSortedSetMember, type RedisTransactionLike } from "./client.js";
import { sessionKey, userIndexKey } from "./keys.js";
import { ADOPT_MANY_SCRIPT, DESTROY_BY_USER_SCRIPT, DESTROY_SCRIPT } from "./scripts.js";

/**
 * Options of {@link redisSessionStore}.
 *
 * @example
 * ```ts
 * redisSessionStore({ client, prefix: "myapp:" });
 * ```
 */
export interface RedisSessionStoreOptions {
  /**
   * A connected node-redis v5 or v6 client, cluster or sentinel that the app created and owns.
   * The store sends commands only: it never connects, retries or closes. Create it with
   * `disableOfflineQueue: true` so that calls fail at once while Redis is unreachable.
   */
  client: RedisClientLike;
  /**
   * Put before every key, so several apps can share one Redis. Avoid a `{hash tag}` in it:
   * on a cluster that would put every session in one slot.
   * @default "ssa:"
   */
  prefix?: string;
  /**
   * Whether the client is a Redis Cluster client. Detected from the client when left
   * out; on a cluster, writes that touch a record and its user index are sent as one
   * transaction per slot, in an order that keeps every live session indexed.
   * @default detected
   */
  cluster?: boolean;
}

const optionsSchema = z.strictObject({
  client: redisClientSchema,
  prefix: z.string().optional(),
  cluster: z.boolean().optional(),
});

/** Sessions per script (or, on a cluster, per round of transactions) in `adoptMany`: Redis runs a script whole, so a large one would hold it up. */
const ADOPT_CHUNK = 500;

/** Commands for one key (so one slot), queued on a transaction. */
type Step = (tx: RedisTransactionLike) => void;

function strings(reply: unknown): string[] {
  return Array.isArray(reply) ? reply.filter((item): item is string => typeof item === "string") : [];
}

function recordOf(reply: unknown): SessionRecord | null {
  return typeof reply === "string" ? decodeSessionRecord(reply) : null;
}

/**
 * A {@link SessionStore} on Redis, shared by every instance of the app. Records are
 * JSON strings under the hashed session id, and Redis forgets them at `expiresAt` by
 * itself (`PXAT`); a sorted set per user lists a user's sessions for "log out
 * everywhere". Needs Redis 7.0 or later (`PEXPIREAT … NX | GT`).
 *
 * On one primary (plain or Sentinel) every write is atomic: a `MULTI`, or for `destroy`
 * and `destroyByUser` a Lua script. On a cluster a record and its user's index sit in
 * different slots, so writes are atomic per key and ordered so that a live session is
 * never missing from its index (see docs/scaling-out.md).
 *
 * Round trips: `get` 1; `create` and `adopt` 1 (2 on a cluster); `touch` 2 (3 on a
 * cluster); `destroy` 1 (2 on a cluster); `listByUser` 2, plus 1 when it prunes;
 * `destroyByUser` 1 (3 on a cluster); `adoptMany` 1 however many sessions (2 per 500 on a
 * cluster). Per-key reads are sent together, so they cost one round trip.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { redisSessionStore } from "services-session-auth/redis";
 *
 * const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const sessionStore = redisSessionStore({ client, prefix: "myapp:" });
 * ```
 * @throws TypeError when `client` is missing or an option is out of range.
 */
export function redisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const parsed = parseOptions(optionsSchema, options, "redisSessionStore");
  const { client, prefix = "ssa:" } = parsed;
  const cluster = parsed.cluster ?? isClusterClient(client);

  // On one primary (plain or sentinel) all steps form one MULTI: atomic, one round trip.
  // On a cluster the record and the index sit in different slots, so each step is its
  // own transaction, run in the order given: the index is written before a record
  // appears and cleaned after it is gone, so a live session is never missing from it.
  async function write(steps: Step[]): Promise<void> {
    if (!cluster) {
      const tx = client.multi();
      for (const step of steps) step(tx);
      await tx.exec();
      return;
    }
    for (const step of steps) {
      const tx = client.multi();
      step(tx);
      await tx.exec();
    }
  }

  function indexStep(uid: string, handle: string, expiresAt: number, condition?: "XX"): Step {
    return indexManyStep(uid, [{ score: expiresAt, value: handle }], condition);
  }

  function indexManyStep(uid: string, members: readonly RedisSortedSetMember[], condition?: "XX"): Step {
    const key = userIndexKey(prefix, uid);
    const latest = Math.max(...members.map((member) => member.score));
    return (tx) => {
      for (const member of members) tx.zAdd(key, member, condition === undefined ? undefined : { condition });
      // Members scored at or before now are sessions Redis has already forgotten.
      tx.zRemRangeByScore(key, "-inf", nowSeconds())
        // NX gives a new index a TTL; GT only ever lengthens it, so it outlives its members.
        .pExpireAt(key, latest * 1000, "NX")
        .pExpireAt(key, latest * 1000, "GT");
    };
  }

  // Adopts a chunk: every user's index first, then the records, as `insert` orders one session.
  function adoptSteps(sessions: readonly StoredSession[]): [Step[], Step[]] {
    const members = new Map<string, RedisSortedSetMember[]>();
    for (const { handle, record } of sessions) {
      const list = members.get(record.uid);
      if (list === undefined) members.set(record.uid, [{ score: record.expiresAt, value: handle }]);
      else list.push({ score: record.expiresAt, value: handle });
    }
    return [[...members].map(([uid, list]) => indexManyStep(uid, list)), sessions.map(({ handle, record }) => recordStep(handle, record))];
  }

  function recordStep(handle: string, record: SessionRecord, condition?: "XX"): Step {
    const expiration = { type: "PXAT" as const, value: record.expiresAt * 1000 };
    return (tx) => {
      tx.set(sessionKey(prefix, handle), encodeSessionRecord(record), condition === undefined ? { expiration } : { expiration, condition });
    };
  }

  async function insert(handle: string, record: SessionRecord): Promise<void> {
    await write([indexStep(record.uid, handle, record.expiresAt), recordStep(handle, record)]);
  }

  async function destroy(handle: string): Promise<void> {
    const key = sessionKey(prefix, handle);
    if (!cluster) {
      // One script: no reader ever sees the record gone but still indexed, and a dropped
      // connection cannot leave one half done.
      await client.eval(DESTROY_SCRIPT, { keys: [key], arguments: [userIndexKey(prefix, ""), handle] });
      return;
    }
    // The record first, then its index entry: a failure in between leaves a stale member
    // (pruned by score later), never a live session missing from its index.
    const record = recordOf(await client.getDel(key));
    if (record !== null) await client.zRem(userIndexKey(prefix, record.uid), handle);
  }

  return {
    async create(record) {
      const sessid = createSessionId();
      await insert(hashSessionId(sessid), record);
      return sessid;
    },
    async get(sessid) {
      if (!isSessionIdShape(sessid)) return null;
      const handle = hashSessionId(sessid);
      const record = recordOf(await client.get(sessionKey(prefix, handle)));
      // Redis expires the key itself; the check here covers clock skew between hosts.
      if (record === null || record.expiresAt <= nowSeconds()) return null;
      return { handle, record };
    },
    async touch(handle, lastSeenAt, expiresAt) {
      // The uid, and so the index key, is only in the record: read it first.
      const record = recordOf(await client.get(sessionKey(prefix, handle)));
      if (record === null) return;
      if (expiresAt <= nowSeconds()) return destroy(handle);
      const next = { ...record, lastSeenAt, expiresAt };
      // XX on both: a session destroyed meanwhile is not brought back.
      await write([indexStep(record.uid, handle, expiresAt, "XX"), recordStep(handle, next, "XX")]);
    },
    destroy,
    async listByUser(uid) {
      const indexKey = userIndexKey(prefix, uid);
      const now = nowSeconds();
      const handles = strings(await client.zRangeByScore(indexKey, `(${now}`, "+inf"));
      const replies = await Promise.all(handles.map((handle) => client.get(sessionKey(prefix, handle))));
      const found: StoredSession[] = [];
      const stale: string[] = [];
      handles.forEach((handle, i) => {
        const record = recordOf(replies[i]);
        if (record !== null && record.uid === uid && record.expiresAt > now) found.push({ handle, record });
        // On a cluster a missing record may be a create between its index and record
        // writes: dropping its member would leave that session unindexed. Such members
        // are pruned by score once they expire.
        else if (record !== null || !cluster) stale.push(handle);
      });
      if (stale.length > 0) await client.zRem(indexKey, stale);
      return found.sort((a, b) => a.record.createdAt - b.record.createdAt);
    },
    async destroyByUser(uid) {
      const indexKey = userIndexKey(prefix, uid);
      if (!cluster) {
        // One script, so a login racing this call is wholly before it (ended) or after it (kept).
        const ended = await client.eval(DESTROY_BY_USER_SCRIPT, { keys: [indexKey], arguments: [sessionKey(prefix, ""), uid, String(nowSeconds())] });
        return Number(ended);
      }
      const handles = strings(await client.zRangeByScore(indexKey, "-inf", "+inf"));
      if (handles.length === 0) return 0;
      const replies = await Promise.all(handles.map((handle) => client.getDel(sessionKey(prefix, handle))));
      const now = nowSeconds();
      const records = replies.map(recordOf);
      const ended = records.filter((record) => record !== null && record.uid === uid && record.expiresAt > now).length;
      // Only members whose record was just deleted: a missing record may be a login
      // between its index and record writes, which must stay indexed.
      const gone = handles.filter((_, i) => records[i] !== null);
      if (gone.length > 0) await client.zRem(indexKey, gone);
      return ended;
    },
    async adopt(handle, record) {
      await insert(handle, record);
    },
    async adoptMany(sessions) {
      const chunks: Array<readonly StoredSession[]> = [];
      for (let i = 0; i < sessions.length; i += ADOPT_CHUNK) chunks.push(sessions.slice(i, i + ADOPT_CHUNK));
      if (!cluster) {
        // One script per chunk, all sent at once: the client pipelines them on its connection,
        // no chunk holds Redis for long, and a few arguments per session cost far less to
        // encode than the five commands of a transaction.
        const now = String(nowSeconds());
        await Promise.all(
          chunks.map((chunk) => {
            const args = [sessionKey(prefix, ""), userIndexKey(prefix, ""), now];
            for (const { handle, record } of chunk) args.push(handle, record.uid, String(record.expiresAt), encodeSessionRecord(record));
            return client.eval(ADOPT_MANY_SCRIPT, { keys: [], arguments: args });
          }),
        );
        return;
      }
      // A cluster transaction keeps to one slot: every index first, then every record, each
      // phase sent at once, so a record never appears before its index entry.
      for (const chunk of chunks) {
        for (const phase of adoptSteps(chunk)) {
          await Promise.all(
            phase.map((step) => {
              const tx = client.multi();
              step(tx);
              return tx.exec();
            }),
          );
        }
      }
    },
  };
}
