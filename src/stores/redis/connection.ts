import { StoreRefusal } from "../store-refusal.js";
import { isClusterClient, type RedisClientLike, type RedisTransactionLike } from "./client.js";

/**
 * How the Redis stores keep one client usable through faults the client cannot see: a command is
 * refused at once while the client is offline (node-redis sends a `MULTI` even then), or while its
 * connection is silent; a connection that stays silent with commands waiting (a black-holed
 * socket, a lost NAT entry, a fail-over) is replaced; and no more than a bounded number of
 * commands wait at once. docs/scaling-out.md#outages has the timings.
 *
 * @module
 */

/** What a client adapter may offer besides the commands: how to drop its connection and open a new one. */
export const RECONNECT = Symbol("services-session-auth.reconnect");

/** A client that can be told to replace its connection (the ioredis adapter). */
interface Reconnectable {
  [RECONNECT]?: () => void;
}

/** A node-redis client's own members the watch reads: whether it can send now, and how to close and reopen it. */
interface NodeRedisMembers {
  readonly isReady?: unknown;
  destroy?: unknown;
  connect?: unknown;
  getSentinelNode?: unknown;
}

/**
 * How long a connection may stay silent with a command waiting before it is replaced, in
 * milliseconds: Redis answers in well under a millisecond, a paused or black-holed one never.
 */
export const SILENCE_LIMIT_MS = 1000;
/** Commands waiting on one client at once; past it a call is refused at once (shed) instead of queued. */
export const MAX_WAITING = 10_000;

interface Waiting {
  readonly since: number;
}

/** One client's watch, shared by every store over it. */
class ConnectionWatch {
  readonly #client: RedisClientLike;
  readonly #waiting = new Set<Waiting>();
  #lastAnswer = performance.now();
  #replacedAt = -Infinity;
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(client: RedisClientLike) {
    this.#client = client;
  }

  /** Sends a command through the watch: refused at once when it could not be answered in time. */
  run<T>(send: () => Promise<T>): Promise<T> {
    const refusal = this.#refusal();
    if (refusal !== undefined) return Promise.reject(refusal);
    const entry: Waiting = { since: performance.now() };
    this.#waiting.add(entry);
    this.#ticker ??= setInterval(() => this.#tick(), SILENCE_LIMIT_MS / 4);
    this.#ticker.unref?.();
    let pending: Promise<T>;
    try {
      pending = send();
    } catch (error) {
      this.#waiting.delete(entry);
      return Promise.reject(error);
    }
    return pending.then(
      (value) => {
        this.#answered(entry);
        return value;
      },
      (error: unknown) => {
        // An error reply is an answer; the client's own errors (offline, closed, timed out) are not.
        if (isReplyError(error)) this.#answered(entry);
        else this.#waiting.delete(entry);
        throw error;
      },
    );
  }

  #answered(entry: Waiting): void {
    this.#waiting.delete(entry);
    this.#lastAnswer = performance.now();
  }

  #refusal(): StoreRefusal | undefined {
    const ready = (this.#client as NodeRedisMembers).isReady;
    if (ready === false) return new StoreRefusal("offline", "the Redis client is not connected");
    if (this.#waiting.size >= MAX_WAITING) return new StoreRefusal("shed", `${MAX_WAITING} Redis commands are already waiting`);
    // Half the silence limit without a word: the next command would only wait behind the others.
    if (this.#silentFor(SILENCE_LIMIT_MS / 2)) return new StoreRefusal("offline", "the Redis connection has not answered");
    return undefined;
  }

  /**
   * Whether a command has waited `ms` and nothing came back in that time. Not "since it was sent":
   * the reply to an earlier command may come just after it went, and then nothing more.
   */
  #silentFor(ms: number): boolean {
    const oldest = this.#oldest();
    const now = performance.now();
    return oldest !== undefined && now - oldest.since >= ms && now - this.#lastAnswer >= ms;
  }

  #oldest(): Waiting | undefined {
    for (const entry of this.#waiting) return entry;
    return undefined;
  }

  #tick(): void {
    if (this.#waiting.size === 0) {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
      return;
    }
    if (!this.#silentFor(SILENCE_LIMIT_MS)) return;
    const now = performance.now();
    // Whatever was sent on the silent connection is given up (the watchdog has answered its callers):
    // new commands are sent again, on a new connection where the client allows one.
    this.#waiting.clear();
    if (now - this.#replacedAt < SILENCE_LIMIT_MS) return;
    this.#replacedAt = now;
    replaceConnection(this.#client);
  }
}

/** Drops the client's connection and opens a new one, where the client allows it (not a cluster or sentinel). */
function replaceConnection(client: RedisClientLike): void {
  const reconnect = (client as Reconnectable)[RECONNECT];
  if (reconnect !== undefined) return reconnect();
  if (isClusterClient(client)) return;
  const own = client as NodeRedisMembers;
  if (typeof own.getSentinelNode === "function" || typeof own.destroy !== "function" || typeof own.connect !== "function") return;
  // Only a client that is ready has no reconnection of its own under way (a second would race it).
  if (own.isReady !== true) return;
  (own.destroy as () => void).call(client);
  (own.connect as () => Promise<unknown>).call(client).catch(() => undefined);
}

/** Whether an error is Redis's reply (node-redis's `ErrorReply`, ioredis's `ReplyError`), so the connection answered. */
function isReplyError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "ErrorReply" || name === "ReplyError" || name === "SimpleError" || name === "BlobError";
}

const watches = new WeakMap<object, ConnectionWatch>();

/** The watch of a client, one per client whatever the number of stores over it. */
function watchOf(client: RedisClientLike): ConnectionWatch {
  let watch = watches.get(client);
  if (watch === undefined) watches.set(client, (watch = new ConnectionWatch(client)));
  return watch;
}

/** The client as the stores send to it: every command and transaction through its connection's watch. */
export function watchedClient(client: RedisClientLike): RedisClientLike {
  const watch = watchOf(client);
  return {
    get: (key) => watch.run(() => client.get(key)),
    getDel: (key) => watch.run(() => client.getDel(key)),
    del: (keys) => watch.run(() => client.del(keys)),
    zRem: (key, members) => watch.run(() => client.zRem(key, members)),
    zRangeByScore: (key, min, max) => watch.run(() => client.zRangeByScore(key, min, max)),
    zRemRangeByScore: (key, min, max) => watch.run(() => client.zRemRangeByScore(key, min, max)),
    eval: (script, options) => watch.run(() => client.eval(script, options)),
    multi: () => watchedTransaction(client.multi(), watch),
  };
}

function watchedTransaction(tx: RedisTransactionLike, watch: ConnectionWatch): RedisTransactionLike {
  const self: RedisTransactionLike = {
    set: (...args) => (tx.set(...args), self),
    zAdd: (...args) => (tx.zAdd(...args), self),
    zRemRangeByScore: (...args) => (tx.zRemRangeByScore(...args), self),
    pExpireAt: (...args) => (tx.pExpireAt(...args), self),
    incr: (...args) => (tx.incr(...args), self),
    pExpire: (...args) => (tx.pExpire(...args), self),
    exec: () => watch.run(() => tx.exec()),
  };
  return self;
}
