/**
 * The session lifecycle built alone: its own settings, two stores and an event function. No
 * router, no HTTP, no other option of the package.
 */
import { describe, expect, it } from "vitest";
import { memorySessionStore, memoryUserStore, type UserRecord } from "services-session-auth";
import type { CookieSettings } from "../../src/cookie/options.js";
import type { SessionSettings } from "../../src/sessions/options.js";
import { Sessions } from "../../src/sessions/sessions.js";
import { fastHasher, USERS } from "../helpers/app.js";

const cookie: CookieSettings = {
  sessionName: "SESStest",
  cookieDomain: undefined,
  baseUrl: undefined,
  cookieSecure: "auto",
  sameSite: undefined,
  absoluteTimeout: 3600,
};
const settings: SessionSettings = { ...cookie, csrfToken: (sessid) => `token-of-${sessid}`, idleTimeout: 600, touchInterval: 60, maxSessionsPerUser: 2 };

async function build() {
  const users = memoryUserStore(USERS, { hasher: fastHasher });
  await users.ready;
  const events: string[] = [];
  const sessions = new Sessions(settings, { sessions: memorySessionStore(), users, local: true }, (event) => events.push(event.type));
  const demo = (await users.findByName("demo")) as UserRecord;
  const client = { ip: "203.0.113.9", userAgent: "unit", now: Math.floor(Date.now() / 1000) };
  return { sessions, demo, client, events };
}

describe("Sessions", () => {
  it("starts a session that a request's cookie then finds live, with its token", async () => {
    const { sessions, demo, client, events } = await build();
    const sessid = await sessions.start(demo, client);
    const context = await sessions.context({ host: "api.example.com", secure: false, cookieHeader: `SESStest=${sessid}` });
    expect(context.state.kind).toBe("live");
    expect(context.setCookie).toEqual([]);
    expect(sessions.tokenFor(context.state)).toBe(`token-of-${sessid}`);
    expect(events).toEqual(["login.success"]);
  });

  it("ends a user's oldest session past maxSessionsPerUser, and a session it ended is stale", async () => {
    const { sessions, demo, client, events } = await build();
    const first = await sessions.start(demo, client);
    await sessions.start(demo, client);
    await sessions.start(demo, client);
    expect(await sessions.list(demo.uid)).toHaveLength(2);
    const context = await sessions.context({ host: "api.example.com", secure: false, cookieHeader: `SESStest=${first}` });
    expect(context.state.kind).toBe("stale");
    expect(events.filter((type) => type === "session.revoked")).toHaveLength(1);
  });

  it("refuses an unsafe method without the session's token, and takes it with", async () => {
    const { sessions, demo, client } = await build();
    const sessid = await sessions.start(demo, client);
    const { state } = await sessions.context({ host: "api.example.com", secure: false, cookieHeader: `SESStest=${sessid}` });
    expect(() =>
      sessions.checkCsrf(
        state,
        "POST",
        () => "wrong",
        () => client.ip,
      ),
    ).toThrow(expect.objectContaining({ code: "ERR_CSRF" }));
    expect(() =>
      sessions.checkCsrf(
        state,
        "POST",
        () => `token-of-${sessid}`,
        () => client.ip,
      ),
    ).not.toThrow();
    expect(() =>
      sessions.checkCsrf(
        state,
        "GET",
        () => undefined,
        () => client.ip,
      ),
    ).not.toThrow();
  });
});
