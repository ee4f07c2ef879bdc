import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cluster as IoredisCluster } from "ioredis";
import { createCluster } from "redis";
import { nowSeconds } from "../../src/clock.js";
import { createSessionId, hashSessionId } from "../../src/sessions/session-id.js";
import { runCli } from "../cli/run-cli.js";
import { createMysql } from "../drupal/helpers/drupal-databases.js";
import { insertSessions, SEED_USERS, seedSite } from "../drupal/helpers/drupal-seed.js";
import { ioredisCounterStore, ioredisSessionStore } from "services-session-auth/ioredis";
import { redisCounterStore, redisSessionStore, type RedisClientLike } from "services-session-auth/redis";
import { sessionKey, userIndexKey } from "../../src/stores/redis/keys.js";
import { describeCounterStore, describeSessionStore } from "./contract.js";
import { freePort, hasBinary, privateRedis, type PrivateRedis } from "./redis-helpers.js";

// Starting a cluster takes a few seconds and three processes, so it runs only when asked.
const wanted = process.env.REDIS_CLUSTER_TESTS === "1";
const binaries = hasBinary("redis-server") && hasBinary("redis-cli");
const skipReason = !wanted ? "REDIS_CLUSTER_TESTS is not 1" : !binaries ? "redis-server or redis-cli is not on PATH" : undefined;
if (skipReason !== undefined) {
  console.warn(`redis-cluster.test.ts: ${skipReason}, skipping the Redis Cluster tests`);
  it.skip(`Redis Cluster tests skipped: ${skipReason} (set REDIS_CLUSTER_TESTS=1 with redis-server and redis-cli installed)`, () => {});
}

/** Three free ports whose cluster bus ports (port + 10000) are free too. */
async function clusterPorts(): Promise<number[]> {
  const ports: number[] = [];
  let next = 7101;
  while (ports.length < 3) {
    const port = await freePort(next);
    if ((await freePort(port + 10_000)) === port + 10_000) ports.push(port);
    next = port + 1;
  }
  return ports;
}

function cli(args: string[]): string {
  const result = spawnSync("redis-cli", args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`redis-cli ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

async function waitForClusterOk(ports: number[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ports.every((port) => cli(["-p", String(port), "cluster", "info"]).includes("cluster_state:ok"))) {
    if (Date.now() > deadline) throw new Error("the cluster never reached cluster_state:ok");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The cluster client, with every transaction after the first held until `gate` resolves. */
function holdingSecondExec(client: RedisClientLike, gate: Promise<void>): RedisClientLike {
  let execs = 0;
  return new Proxy(client, {
    get(target, key: string) {
      const value = (target as unknown as Record<string, (...args: unknown[]) => unknown>)[key];
      if (key !== "multi") return typeof value === "function" ? value.bind(target) : value;
      return () => {
        const tx = value!.call(target) as { exec(): Promise<unknown> };
        const exec = tx.exec.bind(tx);
        tx.exec = () => (++execs === 1 ? exec() : gate.then(exec));
        return tx;
      };
    },
  });
}

describe.skipIf(skipReason !== undefined)("Redis stores on a 3-master Redis Cluster", () => {
  const dir = mkdtempSync(join(tmpdir(), "ssa-cluster-"));
  const nodes: PrivateRedis[] = [];
  let ports: number[] = [];
  let cluster: ReturnType<typeof createCluster>;
  let ioCluster: IoredisCluster;

  beforeAll(async () => {
    ports = await clusterPorts();
    for (const port of ports) {
      const node = privateRedis(port, ["--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", "2000"], dir);
      nodes.push(node);
      await node.start();
    }
    cli(["--cluster", "create", ...ports.map((port) => `127.0.0.1:${port}`), "--cluster-replicas", "0", "--cluster-yes"]);
    await waitForClusterOk(ports);
    cluster = createCluster({
      rootNodes: ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })),
      defaults: { disableOfflineQueue: true },
    });
    cluster.on("error", () => {});
    await cluster.connect();
    ioCluster = new IoredisCluster(
      ports.map((port) => ({ host: "127.0.0.1", port })),
      { lazyConnect: true, enableOfflineQueue: false },
    );
    await ioCluster.connect();
  });

  /** The port of the master that owns a key's slot, as the server computes the slot. */
  function keyOwner(key: string): number {
    return cluster.getSlotMaster(Number(cli(["-p", String(ports[0]), "cluster", "keyslot", key]).trim())).port;
  }

  afterAll(async () => {
    cluster?.destroy();
    ioCluster?.disconnect();
    for (const node of nodes) await node.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describeSessionStore("redisSessionStore (cluster)", () => redisSessionStore({ client: cluster, prefix: "cluster:" }), { clock: "real" });
  describeCounterStore("redisCounterStore (cluster)", () => redisCounterStore({ client: cluster, prefix: "cluster:c:" }), { clock: "real" });
  describeSessionStore("ioredisSessionStore (cluster)", () => ioredisSessionStore({ client: ioCluster, prefix: "iocluster:" }), { clock: "real" });
  describeCounterStore("ioredisCounterStore (cluster)", () => ioredisCounterStore({ client: ioCluster, prefix: "iocluster:c:" }), { clock: "real" });

  // The command line finds out that its --redis URL is a cluster node and writes through a cluster client.
  it.runIf(process.env.MYSQL_URL !== undefined)(
    "drupal7 import-sessions writes into the cluster, each session on the master of its slot",
    async () => {
      const db = await createMysql(process.env.MYSQL_URL!);
      try {
        await seedSite(db);
        const now = nowSeconds();
        const cookies = Array.from({ length: 40 }, () => createSessionId());
        await insertSessions(
          db,
          cookies.map((cookie) => ({ uid: SEED_USERS.admin.uid, sid: hashSessionId(cookie), timestamp: now - 60 })),
        );
        const run = await runCli([
          "drupal7",
          "import-sessions",
          "--database",
          db.url,
          "--redis",
          `redis://127.0.0.1:${ports[0]}`,
          "--redis-prefix",
          "cli-cluster:",
          "--batch-size",
          "16",
        ]);
        expect([run.code, run.stderr]).toEqual([0, ""]);
        expect(run.stdout).toMatch(/^Imported 40 sessions/);
        const store = redisSessionStore({ client: cluster, prefix: "cli-cluster:" });
        for (const cookie of cookies) expect((await store.get(cookie))?.record.uid).toBe(String(SEED_USERS.admin.uid));
        expect(await store.listByUser(String(SEED_USERS.admin.uid))).toHaveLength(40);
        expect(new Set(cookies.map((cookie) => keyOwner(sessionKey("cli-cluster:", hashSessionId(cookie))))).size).toBe(3);
      } finally {
        await db.destroy();
      }
    },
    60_000,
  );

  it("ioredis: ends one user's sessions spread over every master", async () => {
    const store = ioredisSessionStore({ client: ioCluster, prefix: "iospread:" });
    const now = nowSeconds();
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.create({ uid: "779", createdAt: now - i, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "ioredis" }),
      ),
    );
    const owners = new Set(ids.map((id) => keyOwner(sessionKey("iospread:", hashSessionId(id)))));
    expect(owners.size).toBe(3);
    await expect(store.listByUser("779")).resolves.toHaveLength(30);
    await expect(store.destroyByUser("779")).resolves.toBe(30);
    for (const id of ids) await expect(ioCluster.exists(sessionKey("iospread:", hashSessionId(id)))).resolves.toBe(0);
  });

  it("needs the per-slot write path: one MULTI over record and index fails with CROSSSLOT", async () => {
    const forced = redisSessionStore({ client: cluster, prefix: "forced:", cluster: false });
    const now = nowSeconds();
    // The client sends the MULTI to the node owning its first key, or to another one: every
    // attempt fails, with CROSSSLOT where the node owns that slot and MOVED elsewhere (which
    // node-redis 6 follows itself until it gives up with "Too many Cluster redirections"). Forty
    // attempts make "no CROSSSLOT at all" a one-in-ten-million event ((2/3)^40).
    const keyslot = (key: string): number => Number(cli(["-p", String(ports[0]), "cluster", "keyslot", key]).trim());
    const attempts = Array.from({ length: 40 }, (_, i) => {
      const uid = String(900 + i);
      return forced.create({ uid, createdAt: now, lastSeenAt: now, expiresAt: now + 60, ip: "::1", userAgent: "x" }).then(
        // A random id puts its record in its user's index slot once in 16,384 tries; only
        // then may one MULTI succeed, and the slots say whether that is what happened.
        (id) => (keyslot(sessionKey("forced:", hashSessionId(id))) === keyslot(userIndexKey("forced:", uid)) ? "CROSSSLOT-free: one slot" : "ok"),
        (error: unknown) => String(error),
      );
    });
    const outcomes = await Promise.all(attempts);
    for (const outcome of outcomes) expect(outcome).toMatch(/CROSSSLOT|MOVED|Too many Cluster redirections|one slot/);
    expect(outcomes.some((outcome) => /CROSSSLOT(?!-free)/.test(outcome))).toBe(true);
  });

  it("detects the cluster and ends one user's sessions spread over every master", async () => {
    const store = redisSessionStore({ client: cluster, prefix: "spread:" });
    const now = nowSeconds();
    const uid = "777";
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.create({ uid, createdAt: now - i, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "cluster" })),
    );
    const other = await store.create({ uid: "778", createdAt: now, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "cluster" });

    // Which master holds each record: CLUSTER KEYSLOT, then the slot's owner.
    const owners = new Set(
      ids.map((id) => {
        const slot = Number(cli(["-p", String(ports[0]), "cluster", "keyslot", sessionKey("spread:", hashSessionId(id))]).trim());
        return cluster.getSlotMaster(slot).port;
      }),
    );
    expect(owners.size).toBe(3);
    // The index lives on one master; most records do not: the writes really cross slots.
    const indexKey = userIndexKey("spread:", uid);
    const indexSlot = Number(cli(["-p", String(ports[0]), "cluster", "keyslot", indexKey]).trim());
    const indexOwner = cluster.getSlotMaster(indexSlot).port;
    const elsewhere = ids.filter((id) => keyOwner(sessionKey("spread:", hashSessionId(id))) !== indexOwner);
    expect(elsewhere.length).toBeGreaterThan(0);
    const master = cluster.getSlotMaster(indexSlot).client!;
    await expect(master.zCard(indexKey)).resolves.toBe(30);

    await expect(store.listByUser(uid)).resolves.toHaveLength(30);
    await expect(store.destroyByUser(uid)).resolves.toBe(30);
    for (const id of ids) await expect(store.get(id)).resolves.toBeNull();
    // Gone from every master, not only from the index's: read each key on the node that owns it.
    for (const id of ids) await expect(cluster.exists(sessionKey("spread:", hashSessionId(id)))).resolves.toBe(0);
    await expect(master.exists(indexKey)).resolves.toBe(0);
    await expect(store.listByUser(uid)).resolves.toEqual([]);
    await expect(store.get(other)).resolves.not.toBeNull();
  });

  it("keeps a login indexed when listByUser or destroyByUser runs between its index and record writes", async () => {
    const now = nowSeconds();
    for (const operation of ["listByUser", "destroyByUser"] as const) {
      const uid = `pending-${operation}`;
      const store = redisSessionStore({ client: cluster, prefix: "pending:" });
      // The login's second transaction (its record) waits until the other call is done.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = redisSessionStore({ client: holdingSecondExec(cluster, gate), prefix: "pending:" });
      const creating = slow.create({ uid, createdAt: now, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "pending" });
      await expect.poll(() => cluster.zCard(userIndexKey("pending:", uid))).toBe(1);
      await store[operation](uid);
      release();
      const sessid = await creating;
      const found = await store.get(sessid);
      expect(found, operation).not.toBeNull();
      expect(
        (await store.listByUser(uid)).map((s) => s.handle),
        operation,
      ).toEqual([found!.handle]);
    }
  });
});
