import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSentinel } from "redis";
import { redisSessionStore } from "services-session-auth/redis";
import { describeSessionStore } from "./contract.js";
import { freePort, hasBinary, privateRedis, waitForPing, type PrivateRedis } from "./redis-helpers.js";

const canRun = hasBinary("redis-server") && hasBinary("redis-cli");
if (!canRun) {
  console.warn("redis-sentinel.test.ts: redis-server or redis-cli not on PATH, skipping the Sentinel test");
  it.skip("redis-server/redis-cli not on PATH: Sentinel test skipped", () => {});
}

// A primary and one Sentinel on free loopback ports: the store gets the app's sentinel
// client and must treat it as one primary (one MULTI per write).
describe.skipIf(!canRun)("redisSessionStore through Redis Sentinel", () => {
  let primary: PrivateRedis;
  let sentinelProcess: ChildProcess | undefined;
  let sentinel: ReturnType<typeof createSentinel>;

  beforeAll(async () => {
    primary = privateRedis(await freePort(6420));
    await primary.start();
    const sentinelPort = await freePort(primary.port + 1);
    const config = join(primary.dir, "sentinel.conf");
    writeFileSync(
      config,
      [`port ${sentinelPort}`, "bind 127.0.0.1", `dir ${primary.dir}`, `sentinel monitor mymaster 127.0.0.1 ${primary.port} 1`, ""].join("\n"),
    );
    sentinelProcess = spawn("redis-server", [config, "--sentinel"], { stdio: "ignore" });
    await waitForPing(sentinelPort);
    sentinel = createSentinel({
      name: "mymaster",
      sentinelRootNodes: [{ host: "127.0.0.1", port: sentinelPort }],
      nodeClientOptions: { disableOfflineQueue: true },
    });
    sentinel.on("error", () => {});
    await sentinel.connect();
  });

  afterAll(async () => {
    sentinel?.destroy();
    if (sentinelProcess !== undefined && sentinelProcess.exitCode === null) {
      const exited = new Promise((resolve) => sentinelProcess!.once("exit", resolve));
      sentinelProcess.kill("SIGKILL");
      await exited;
    }
    await primary?.dispose();
  });

  describeSessionStore("redisSessionStore (sentinel)", () => redisSessionStore({ client: sentinel, prefix: "sentinel:" }), { clock: "real" });

  it("writes through the primary the Sentinel names", async () => {
    const store = redisSessionStore({ client: sentinel, prefix: "sentinel-direct:" });
    const now = Math.floor(Date.now() / 1000);
    const sessid = await store.create({ uid: "1", createdAt: now, lastSeenAt: now, expiresAt: now + 60, ip: "::1", userAgent: "s" });
    await expect(store.get(sessid)).resolves.not.toBeNull();
    await expect(store.destroyByUser("1")).resolves.toBe(1);
  });
});
