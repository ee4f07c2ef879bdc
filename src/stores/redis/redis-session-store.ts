import { z } from "zod";
import { nowSeconds } from "../../clock.js";
import { createSessionId, hashSessionId, isSessionIdShape } from "../../sessions/session-id.js";
import { decodeSessionRecord, encodeSessionRecord } from "../../sessions/session-record.js";
import { parseOptions } from "../../validate.js";
import { redisClientSchema } from "./client-option.js";
import type { SessionRecord, SessionStore, StoredSession } from "../../types.js";
import { isClusterClient, type RedisClientLike, type RedisSortedSetMember, type RedisTransactionLike } from "./client.js";
import { watchedClient } from "./connection.js";
import { sessionKey, userIndexKey } from "./keys.js";
import { ADOPT_MANY_SCRIPT, DESTROY_BY_USER_SCRIPT, DESTROY_SCRIPT } from "./scripts.js";

/** Options of {@link redisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** A connected node-redis client the app owns (made with `disableOfflineQueue: true`); the store never connects or closes it. */
  client: RedisClientLike;
  /**
   * Put before every key, so apps can share one Redis; no `{hash tag}`, which would put every session in one slot.
   * @default "ssa:"
   */
  prefix?: string;
  /**
   * Whether the client is a Redis Cluster client; on one, record and index writes are ordered
   * per slot so every live session stays indexed.
   * @default detected
   */
  cluster?: boolean;
  /**
   * A second connection for writes (`client.duplicate()`, connected): Redis answers one connection's
   * commands in order, so a write it holds back (`CLIENT PAUSE WRITE`, a fail-over) would hold every
   * read sent after it on the same connection.
   * @default client: reads and writes share it
   */
  writeClient?: RedisClientLike;
}

const optionsSchema = z.strictObject({
  client: redisClientSchema,
  prefix: z.string().optional(),
  cluster: z.boolean().optional(),
  writeClient: redisClientSchema.optional(),
});

/** Sessions per `adoptMany` script (or cluster round): Redis runs a script whole, so a large one would hold it up. */
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
 * A {@link SessionStore} on Redis 7+, shared by every instance: JSON records under the hashed id,
 * expired by Redis itself (`PXAT`), and a sorted set per user. Atomic on one primary; ordered per
 * slot on a cluster. Layout and round trips: docs/scaling-out.md#redis.
 *
 * @example
 * ```ts
 * const sessionStore = redisSessionStore({ client: await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect() });
 * ```
 * @throws TypeError when `client` is missing or an option is out of range.
 */
export function redisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const parsed = parseOptions(optionsSchema, options, "redisSessionStore");
  const { prefix = "ssa:" } = parsed;
  const cluster = parsed.cluster ?? isClusterClient(parsed.client);
  const client = watchedClient(parsed.client);
  const writer = parsed.writeClient === undefined ? client : watchedClient(parsed.writeClient);

  // One primary: one MULTI. A cluster: one transaction per slot, in order, index before record
  // and cleaned after it, so a live session is never missing from its index.
  async function write(steps: Step[]): Promise<void> {
    if (!cluster) {
      const tx = writer.multi();
      for (const step of steps) step(tx);
      await tx.exec();
      return;
    }
    for (const step of steps) {
      const tx = writer.multi();
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
      // One script: no reader sees the record gone but indexed, and no dropped connection leaves half.
      await writer.eval(DESTROY_SCRIPT, { keys: [key], arguments: [userIndexKey(prefix, ""), handle] });
      return;
    }
    // Record first, then index: a failure between leaves a stale member (pruned later), never an unindexed session.
    const record = recordOf(await writer.getDel(key));
    if (record !== null) await writer.zRem(userIndexKey(prefix, record.uid), handle);
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
        // On a cluster a missing record may be a create between its two writes: keep it (pruned by score).
        else if (record !== null || !cluster) stale.push(handle);
      });
      if (stale.length > 0) await writer.zRem(indexKey, stale);
      return found.sort((a, b) => a.record.createdAt - b.record.createdAt);
    },
    async destroyByUser(uid) {
      const indexKey = userIndexKey(prefix, uid);
      if (!cluster) {
        // One script, so a login racing this call is wholly before it (ended) or after it (kept).
        const ended = await writer.eval(DESTROY_BY_USER_SCRIPT, { keys: [indexKey], arguments: [sessionKey(prefix, ""), uid, String(nowSeconds())] });
        return Number(ended);
      }
      const handles = strings(await client.zRangeByScore(indexKey, "-inf", "+inf"));
      if (handles.length === 0) return 0;
      const replies = await Promise.all(handles.map((handle) => writer.getDel(sessionKey(prefix, handle))));
      const now = nowSeconds();
      const records = replies.map(recordOf);
      const ended = records.filter((record) => record !== null && record.uid === uid && record.expiresAt > now).length;
      // Only members whose record was just deleted: a missing one may be a login half-written.
      const gone = handles.filter((_, i) => records[i] !== null);
      if (gone.length > 0) await writer.zRem(indexKey, gone);
      return ended;
    },
    async adopt(handle, record) {
      await insert(handle, record);
    },
    async adoptMany(sessions) {
      const chunks: Array<readonly StoredSession[]> = [];
      for (let i = 0; i < sessions.length; i += ADOPT_CHUNK) chunks.push(sessions.slice(i, i + ADOPT_CHUNK));
      if (!cluster) {
        // One script per chunk, pipelined: no chunk holds Redis long, and a few arguments per
        // session encode far cheaper than a transaction's five commands.
        const now = String(nowSeconds());
        await Promise.all(
          chunks.map((chunk) => {
            const args = [sessionKey(prefix, ""), userIndexKey(prefix, ""), now];
            for (const { handle, record } of chunk) args.push(handle, record.uid, String(record.expiresAt), encodeSessionRecord(record));
            return writer.eval(ADOPT_MANY_SCRIPT, { keys: [], arguments: args });
          }),
        );
        return;
      }
      // One slot per cluster transaction: every index, then every record, each phase at once.
      for (const chunk of chunks) {
        for (const phase of adoptSteps(chunk)) {
          await Promise.all(
            phase.map((step) => {
              const tx = writer.multi();
              step(tx);
              return tx.exec();
            }),
          );
        }
      }
    },
  };
}
