/**
 * The example app beside a real Drupal site with one command: `SESSION_STORE=drupal7`,
 * `DATABASE_URL` and `DRUPAL_HASH_SALT` (the private key read from the `variable` table), behind
 * a proxy that sends the Services paths to it and the rest to Drupal. Users move between the two.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client, showsLoggedIn, startProxy, type Proxy } from "../helpers/beside-drupal.js";
import { describeBesideDrupal, testPort } from "../helpers/drupal7-site.js";

describeBesideDrupal(
  "the example app with SESSION_STORE=drupal7",
  8,
  (site, variant) => {
    let child: ChildProcess;
    let proxy: Proxy;
    let output = "";

    beforeAll(async () => {
      // Ports 16 and 17 of the range: the sites of the suites take 0 to 15.
      const port = testPort(variant.dialect === "mysql" ? 16 : 17);
      child = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
        env: {
          ...process.env,
          PORT: String(port),
          NODE_ENV: "production",
          SESSION_STORE: "drupal7",
          DATABASE_URL: site().dbUrl,
          DRUPAL_HASH_SALT: site().hashSalt,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      // Ready once it says it listens (it reads Drupal's settings and key first).
      const deadline = Date.now() + 60_000;
      while (!output.includes("with drupal7 sessions")) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the example did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      proxy = await startProxy(site().port, port);
    }, 90_000);
    afterAll(async () => {
      await proxy?.close();
      child?.kill("SIGTERM");
    });

    it("serves a user logged in on Drupal, and Drupal serves one logged in on the example", async () => {
      const onDrupal = new Client(proxy.port);
      proxy.mode = "drupal";
      expect((await onDrupal.postForm("/services/json/user/login", { username: "admin", password: "admin-password" })).status).toBe(200);
      proxy.mode = "split";
      // The example's guarded routes, one of them for the administrator role (Drupal's role 3).
      expect((await onDrupal.get("/services/json/players")).status).toBe(200);
      expect((await onDrupal.get("/services/json/admin/stats")).status).toBe(200);

      const onNode = new Client(proxy.port);
      const login = await onNode.postJson("/services/json/user/login", { username: "demo", password: "demo-password" });
      expect(login.json<{ user: { uid: string } }>().user.uid).toBe("2");
      expect((await onNode.get("/services/json/admin/stats")).status).toBe(403);
      expect(showsLoggedIn((await onNode.get("/user")).text, "demo")).toBe(true);
      const { token } = login.json<{ token: string }>();
      expect((await onNode.postJson("/services/json/user/logout", "", { "X-CSRF-Token": token })).text).toBe("[true]");
      expect(await site().sql("SELECT sid FROM sessions WHERE uid = 2")).toEqual([]);
    });
  },
  (variant) => !variant.rawSids,
);
