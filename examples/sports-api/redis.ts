import { Redis } from "ioredis";
import { createClient } from "redis";
import type { CounterStore, SessionStore } from "services-session-auth";
import { ioredisCounterStore, ioredisSessionStore } from "services-session-auth/ioredis";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";

/** The example's Redis stores over one client library, and how to let go of its connections. */
export interface ExampleRedis {
  sessionStore(prefix: string): SessionStore;
  counterStore(prefix: string): CounterStore;
  /** Closes both connections, waiting at most a second for replies a dead Redis will never send. */
  close(): Promise<void>;
}

/**
 * Two connections to `REDIS_URL` (one for reads, one for writes, so a write Redis holds back never
 * holds a read), set up as docs/scaling-out.md#outages says: no offline queue, a short connect
 * timeout, keep-alive, and a socket timeout that ends a silent handshake.
 * `REDIS_CLIENT=ioredis` uses ioredis; node-redis otherwise.
 */
export async function redisFromEnv(url: string, library = "node-redis"): Promise<ExampleRedis> {
  if (library !== "node-redis" && library !== "ioredis") throw new TypeError(`REDIS_CLIENT must be node-redis or ioredis, not "${library}"`);
  if (library === "ioredis") {
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false, // fail at once while disconnected, instead of queueing
      maxRetriesPerRequest: 0, // a command lost with its connection fails, never sent again later
      autoResendUnfulfilledCommands: false,
      connectTimeout: 1000,
      socketTimeout: 1000, // no reply within 1 s of a command: the connection is dead, reconnect
      keepAlive: 1000,
      retryStrategy: (times) => Math.min(50 * 2 ** times, 500),
    });
    const writeClient = await connectedPair(client, () => client.duplicate());
    return {
      sessionStore: (prefix) => ioredisSessionStore({ client, writeClient, prefix }),
      counterStore: (prefix) => ioredisCounterStore({ client, writeClient, prefix }),
      close: async () => void (await bounded(Promise.all([client.quit(), writeClient.quit()]), () => [client, writeClient].forEach((one) => one.disconnect()))),
    };
  }
  const client = createClient({
    url,
    disableOfflineQueue: true, // fail at once while disconnected, instead of queueing
    pingInterval: 500, // keeps an idle connection busy, so socketTimeout only ends a silent one
    socket: {
      connectTimeout: 1000,
      socketTimeout: 1000, // a handshake that hangs is ended and tried again
      keepAlive: true,
      keepAliveInitialDelay: 1000,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 500),
    },
  });
  const writeClient = await connectedPair(client, () => client.duplicate());
  return {
    sessionStore: (prefix) => redisSessionStore({ client, writeClient, prefix }),
    counterStore: (prefix) => redisCounterStore({ client, writeClient, prefix }),
    close: async () =>
      void (await bounded(Promise.all([client.close(), writeClient.close()]), () =>
        [client, writeClient].forEach((one) => {
          if (one.isOpen) one.destroy();
        }),
      )),
  };
}

/** Connects `client` and a second connection like it for writes (errors are the stores' to answer); resolves the second. */
async function connectedPair<C extends { on(event: "error", listener: () => void): unknown; connect(): Promise<unknown> }>(
  client: C,
  duplicate: () => C,
): Promise<C> {
  const writeClient = duplicate();
  for (const one of [client, writeClient]) {
    one.on("error", () => undefined);
    await one.connect();
  }
  return writeClient;
}

/** `graceful`, or `force()` once it has taken a second. */
async function bounded(graceful: Promise<unknown>, force: () => void): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)));
  const done = await Promise.race([
    graceful.then(
      () => true,
      () => true,
    ),
    late.then(() => false),
  ]);
  clearTimeout(timer);
  if (!done) force();
}
