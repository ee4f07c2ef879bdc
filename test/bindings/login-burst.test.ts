/**
 * Issue 29's login storm: one account's right password sent 20 at a time from one address
 * (kiosks or a family behind one NAT, an app that retries) while checks are slow. The atomic
 * reservation lets at most the account's limit (5) be checked at once; the others used to be
 * told "406 Account is temporarily blocked." though nothing had failed, and those refusals were
 * registered as failures of the address, which then locked every user behind it. An attempt
 * held back only by others still in flight now waits its turn (or, past `hashing.maxWait`, gets
 * a 503 with `Retry-After`), and is never counted: only recorded failures block.
 *
 * Slowness is a gate, not a clock (see arrivalGate): the burst is in flight together however
 * fast or slow the machine is.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { memoryCounterStore } from "services-session-auth";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";
import { postJson, type Reply } from "../helpers/clients.js";
import { arrivalGate } from "../helpers/arrival-gate.js";

const LOGIN = "/services/json/user/login";

async function listening(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return (server.address() as AddressInfo).port;
}

const burst = (port: number, size: number): Promise<Reply[]> =>
  Promise.all(Array.from({ length: size }, () => postJson(port, LOGIN, { username: "demo", password: "demo-password" }, { from: "127.0.0.9" })));

describe.each(FRAMEWORKS)("right passwords sent 20 at a time for one account from one address on %s", (binding) => {
  it("are all let in, one turn after another, and never lock the account or the address", async () => {
    // An address limit below one burst: a single burst's refusals, counted as failures, would lock it.
    const gate = arrivalGate(20);
    const { hasher, verified } = gate;
    const counterStore = gate.counting(memoryCounterStore());
    const { server } = await bindingApp(binding, { counterStore, hasher, hashing: { maxWait: 60 }, throttle: { ipLimit: 10 } });
    const port = await listening(server);
    try {
      for (let round = 0; round < 4; round += 1) {
        const replies = await burst(port, 20);
        expect([round, replies.map((reply) => reply.status)]).toEqual([round, Array(20).fill(200)]);
      }
      // Every login was checked once, and none of them counted against the address.
      expect(verified).toHaveLength(80);
      const other = await postJson(port, LOGIN, { username: "admin", password: "admin-password" }, { from: "127.0.0.9" });
      expect(other.status).toBe(200);
      await expect(counterStore.get("ip:127.0.0.9")).resolves.toBe(0);
    } finally {
      server.close();
    }
  });

  it("tells an attempt that waited past maxWait to retry (503, Retry-After), never 'blocked', and counts nothing", async () => {
    const gate = arrivalGate(Number.POSITIVE_INFINITY);
    const { hasher, open } = gate;
    const counterStore = gate.counting(memoryCounterStore());
    // Five checks at once: the five reserved are checked at once, and only the throttle holds the others.
    const { server } = await bindingApp(binding, { counterStore, hasher, hashing: { concurrency: 5, maxWait: 0.3 }, throttle: { ipLimit: 10 } });
    const port = await listening(server);
    try {
      let answers = 0;
      const replies = Promise.all(
        Array.from({ length: 20 }, () =>
          postJson(port, LOGIN, { username: "demo", password: "demo-password" }, { from: "127.0.0.9" }).then((reply) => ((answers += 1), reply)),
        ),
      );
      // The checks stay held until every attempt that could not be checked has been answered.
      while (answers < 15) await new Promise((resolve) => setTimeout(resolve, 5));
      open();
      const answered = await replies;
      const busy = answered.filter((reply) => reply.status === 503);
      expect(answered.filter((reply) => reply.status !== 503).map((reply) => reply.status)).toEqual(Array(20 - busy.length).fill(200));
      expect(busy.length).toBeGreaterThanOrEqual(15);
      for (const reply of busy) {
        expect([reply.reason, reply.body]).toEqual([": Too many logins at once: try again shortly.", '["Too many logins at once: try again shortly."]']);
        expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      }
      await expect(counterStore.get("ip:127.0.0.9")).resolves.toBe(0);
      expect((await postJson(port, LOGIN, { username: "admin", password: "admin-password" }, { from: "127.0.0.9" })).status).toBe(200);
    } finally {
      server.close();
    }
  });
});
