/**
 * docs/running-beside-drupal-7.md, followed as written: its app is the file ./guide/app.ts
 * (checked character for character), run beside a real Drupal site served over HTTPS behind a
 * TLS-ending proxy, as the guide's nginx and Caddy examples are: Drupal keys those sessions
 * on `ssid` as well, and both sides name the cookie `SSESS…`.
 */
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client, showsLoggedIn, startProxy, type Proxy } from "../helpers/beside-drupal.js";
import { describeBesideDrupal, testPort } from "../helpers/drupal7-site.js";

const guide = readFileSync(new URL("../../../docs/running-beside-drupal-7.md", import.meta.url), "utf8");

describe("the guide to running beside Drupal 7", () => {
  it("shows guide/app.ts exactly as the file this suite runs", () => {
    const block = /^```ts\n([\s\S]*?)^```$/m.exec(guide)?.[1];
    expect(block).toBe(readFileSync(new URL("./guide/app.ts", import.meta.url), "utf8"));
  });

  it("links from the migration guide and the README", () => {
    expect(readFileSync(new URL("../../../docs/migrating-from-drupal-7.md", import.meta.url), "utf8")).toContain("(running-beside-drupal-7.md)");
    expect(readFileSync(new URL("../../../README.md", import.meta.url), "utf8")).toContain("docs/running-beside-drupal-7.md");
  });
});

describeBesideDrupal(
  "the guide's app",
  12,
  (site, variant) => {
    let server: Server;
    let proxy: Proxy;
    const pools: Array<{ end(): Promise<void> }> = [];

    beforeAll(async () => {
      Object.assign(process.env, {
        DRUPAL_DB_URL: site().dbUrl,
        DRUPAL_HASH_SALT: site().hashSalt,
        SESSION_SECRET: "guide-test-secret-0123456789abcdefghijkl",
        PORT: String(testPort(18 + (variant.dialect === "mysql" ? 0 : 1))),
      });
      // The one line that differs on PostgreSQL, as the guide's comment says.
      vi.resetModules();
      vi.doMock("mysql2/promise", () => ({
        default: {
          createPool(url: string) {
            const pool = variant.dialect === "mysql" ? mysql.createPool(url) : new pg.Pool({ connectionString: url });
            pools.push(pool);
            return pool;
          },
        },
      }));
      // The app listens by itself, as printed.
      ({ server } = (await import("./guide/app.js")) as { server: Server });
      if (!server.listening) await new Promise((resolve) => server.once("listening", resolve));
      proxy = await startProxy(site().port, (server.address() as AddressInfo).port, { https: true });
    });
    afterAll(async () => {
      vi.doUnmock("mysql2/promise");
      await proxy?.close();
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      await Promise.all(pools.map((pool) => pool.end()));
    });

    it("shares HTTPS sessions: a Node login is keyed on sid and ssid as Drupal keys one, and a Drupal login works on Node", async () => {
      const onNode = new Client(proxy.port);
      const login = await onNode.postJson("/services/json/user/login", { username: "demo", password: "demo-password" });
      const { sessid, session_name, token } = login.json<{ sessid: string; session_name: string; token: string }>();
      expect(session_name).toMatch(/^SSESS/);
      const [row] = await site().sql<{ sid: string; ssid: string }>("SELECT sid, ssid FROM sessions WHERE uid = 2");
      expect(row?.ssid).toBe(row?.sid);
      expect(showsLoggedIn((await onNode.get("/user")).text, "demo")).toBe(true);
      proxy.mode = "drupal";
      expect((await onNode.postJson("/services/json/system/connect", "", { "X-CSRF-Token": token })).json<{ sessid: string }>().sessid).toBe(sessid);

      const onDrupal = new Client(proxy.port);
      expect((await onDrupal.postForm("/services/json/user/login", { username: "admin", password: "admin-password" })).status).toBe(200);
      proxy.mode = "split";
      const connect = await onDrupal.postJson("/services/json/system/connect", "", { "X-CSRF-Token": (await onDrupal.get("/services/session/token")).text });
      expect(connect.json<{ user: { uid: string } }>().user.uid).toBe("1");
      expect((await onNode.postJson("/services/json/user/logout", "", { "X-CSRF-Token": token })).text).toBe("[true]");
      expect(showsLoggedIn((await onDrupal.get("/user")).text, "admin")).toBe(true);
    });

    it("serves the resource it ported, answers Services' 404 for one it did not, and counts failed logins in Drupal's flood table", async () => {
      const client = new Client(proxy.port);
      await client.postJson("/services/json/user/login", { username: "demo", password: "demo-password" });
      expect((await client.get("/services/json/players")).json()).toEqual([{ id: 1, name: "Ada Lovelace" }]);
      const missed = await client.get("/services/json/node/1");
      expect([missed.status, missed.reason]).toEqual([404, "Not found : Could not find resource node."]);
      await site().sql("DELETE FROM flood");
      expect((await new Client(proxy.port).postJson("/services/json/user/login", { username: "admin", password: "wrong" })).status).toBe(401);
      const events = await site().sql<{ event: string }>("SELECT event FROM flood ORDER BY fid");
      expect(events.map((one) => one.event)).toEqual(expect.arrayContaining(["failed_login_attempt_ip", "failed_login_attempt_user"]));
    });
  },
  (variant) => !variant.rawSids,
);
