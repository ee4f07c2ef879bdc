/**
 * The Redis stores' watch of a client's connection, on a client double whose replies the test
 * sends: a connection that goes silent is refused, then replaced, whatever reply came just before.
 */
import { expect, it } from "vitest";
import { redisCounterStore, type RedisClientLike } from "services-session-auth/redis";

/** A node-redis-shaped client whose `GET`s wait until the test answers them, counting reconnections. */
function scriptedClient() {
  const pending: Array<(value: string) => void> = [];
  const calls = { destroy: 0, connect: 0 };
  const client = {
    isReady: true,
    get: () => new Promise<unknown>((resolve) => pending.push(resolve)),
    getDel: () => Promise.resolve(null),
    del: () => Promise.resolve(0),
    zRem: () => Promise.resolve(0),
    zRangeByScore: () => Promise.resolve([]),
    zRemRangeByScore: () => Promise.resolve(0),
    eval: () => Promise.resolve(0),
    multi: () => {
      throw new Error("not used");
    },
    destroy() {
      calls.destroy += 1;
    },
    async connect() {
      calls.connect += 1;
    },
  };
  return { client: client as unknown as RedisClientLike, pending, calls };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("replaces a connection that answered an earlier command just after a later one went, then nothing", async () => {
  const { client, pending, calls } = scriptedClient();
  const counters = redisCounterStore({ client });
  const first = counters.get("a");
  const second = counters.get("b").catch((error: unknown) => error);
  // The first command's reply arrives after the second was sent; then the connection is silent.
  pending.shift()!("1");
  await expect(first).resolves.toBe(1);
  await sleep(600);
  // Half a second of silence with a command waiting: the next call is refused at once, never sent.
  await expect(counters.get("c")).rejects.toMatchObject({ name: "StoreRefusal", reason: "offline" });
  expect(pending).toHaveLength(1);
  await sleep(700);
  expect(calls).toEqual({ destroy: 1, connect: 1 });
  // What waited on the old connection is given up: calls go out again.
  const third = counters.get("d");
  expect(pending).toHaveLength(2);
  pending.pop()!("3");
  await expect(third).resolves.toBe(3);
  void second;
});

it("never replaces a connection that keeps answering, however slowly each reply comes", async () => {
  const { client, pending, calls } = scriptedClient();
  const counters = redisCounterStore({ client });
  // A command every 100 ms, each answered 300 ms later: always something waiting, never a silent second.
  const answered: Promise<number>[] = [];
  for (let i = 0; i < 15; i++) {
    answered.push(counters.get(`k${i}`));
    setTimeout(() => pending.shift()?.(String(i)), 300);
    await sleep(100);
  }
  await Promise.all(answered);
  expect(calls).toEqual({ destroy: 0, connect: 0 });
});

it("refuses a transaction at once while the client is offline: node-redis would send a MULTI anyway, and it waited for the reconnection", async () => {
  const { client } = scriptedClient();
  let sent = 0;
  (client as unknown as { multi: () => unknown }).multi = () => {
    const tx = {
      incr: () => tx,
      pExpire: () => tx,
      exec: () => {
        sent += 1;
        return new Promise(() => undefined);
      },
    };
    return tx;
  };
  (client as unknown as { isReady: boolean }).isReady = false;
  const counters = redisCounterStore({ client });
  await expect(counters.increment("ip:a", 60)).rejects.toMatchObject({ name: "StoreRefusal", reason: "offline" });
  expect(sent).toBe(0);
});
