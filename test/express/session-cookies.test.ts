import { describe, expect, it } from "vitest";
import type { SessionStore } from "services-session-auth";
import { createTestApp, login, setCookies } from "../helpers/app.js";

const HOST = "api.example.com";
const DELETED = "deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; path=/";

/** Logs in under the production-like host, where Drupal's rule gives the cookie a Domain. */
async function loginAt(agent: ReturnType<typeof createTestApp>["agent"]) {
  const res = await agent.post("/services/json/user/login").set("Host", HOST).send({ username: "demo", password: "demo-password" });
  return res.body as { sessid: string; session_name: string; token: string };
}

/** Counts the reads a session store is asked for. */
function countingReads(store: SessionStore) {
  let reads = 0;
  const counted: SessionStore = { ...store, get: (sessid) => ((reads += 1), store.get(sessid)) };
  for (const key of ["create", "touch", "destroy", "listByUser", "destroyByUser", "adopt"] as const) {
    const method = store[key];
    if (typeof method === "function") (counted as unknown as Record<string, unknown>)[key] = method.bind(store);
  }
  return { store: counted, reads: () => reads };
}

describe("several session cookies of one name", () => {
  it("uses the one that names a live session, whichever comes first, and keeps only it", async () => {
    const { agent } = createTestApp();
    const live = await loginAt(agent);
    // A Drupal-era cookie for the same name, older, so a browser sends it first.
    const res = await agent
      .post("/services/json/system/connect")
      .set("Host", HOST)
      .set("Cookie", `${live.session_name}=drupal-era-session-id-00000000000000000000; ${live.session_name}=${live.sessid}`)
      .set("X-CSRF-Token", live.token)
      .send();
    expect((res.body as { sessid: string; user: { uid: unknown } }).user.uid).toBe("14");
    expect((res.body as { sessid: string }).sessid).toBe(live.sessid);
    // The live id set where this server keeps it (for the rest of its life), the host-only copy deleted.
    const [kept, deleted, ...rest] = setCookies(res);
    expect(kept).toMatch(new RegExp(`^${live.session_name}=${live.sessid}; expires=.+; Max-Age=\\d+; path=/; domain=\\.api\\.example\\.com; HttpOnly$`));
    expect(Number(/Max-Age=(\d+)/.exec(kept!)![1])).toBeGreaterThan(1_999_990);
    expect(deleted).toBe(`${live.session_name}=${DELETED}; HttpOnly`);
    expect(rest).toEqual([]);
  });

  it("does the same for requireSession, on the reply of the route it lets through", async () => {
    const { agent } = createTestApp();
    const live = await loginAt(agent);
    const res = await agent.get("/services/json/players").set("Host", HOST).set("Cookie", `${live.session_name}=stale-one-0000000000000000000000000000000000; ${live.session_name}=${live.sessid}`);
    expect(res.status).toBe(200);
    expect(setCookies(res)).toHaveLength(2);
  });

  it("tries at most three of them, so a header stuffed with copies costs three store reads", async () => {
    const counting = countingReads(createTestApp().sessionStore);
    const { app, agent } = createTestApp({ sessionStore: counting.store });
    const session = await login(app);
    const copies = Array.from({ length: 50 }, (_, i) => `${session.session_name}=stale-${String(i).padStart(38, "0")}`);
    const before = counting.reads();
    const res = await agent.post("/services/json/system/connect").set("Cookie", [...copies, session.cookie].join("; ")).set("X-CSRF-Token", session.token).send();
    expect(counting.reads() - before).toBe(3);
    // The live one came too late to be looked at: the caller is anonymous, and the copies are deleted.
    expect((res.body as { user: { uid: unknown } }).user.uid).toBe(0);
    expect(setCookies(res)[0]).toMatch(/=deleted; /);
  });

  it("deletes a stale cookie where this server sets it and where a Drupal-era or older copy may sit", async () => {
    const { agent } = createTestApp();
    const name = (await loginAt(agent)).session_name;
    const res = await agent.post("/services/json/system/connect").set("Host", HOST).set("Cookie", `${name}=gone-000000000000000000000000000000000000000`).send();
    expect(setCookies(res)).toEqual([`${name}=${DELETED}; domain=.api.example.com; HttpOnly`, `${name}=${DELETED}; HttpOnly`]);
    // Drupal's session_id() is the cookie's value, live or not: connect echoes it, the token is its token.
    expect((res.body as { sessid: string }).sessid).toBe("gone-000000000000000000000000000000000000000");
  });

  it("at login, sets the new cookie first and deletes the other places a stale copy may sit", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/login").set("Host", HOST).set("Cookie", "SESSx=1").send({ username: "demo", password: "demo-password" });
    const { session_name, sessid } = res.body as { session_name: string; sessid: string };
    expect(setCookies(res)).toHaveLength(1);
    const stale = await agent.post("/services/json/user/login").set("Host", HOST).set("Cookie", `${session_name}=${sessid}x`).send({ username: "demo", password: "demo-password" });
    const [fresh, deleted] = setCookies(stale);
    expect(fresh).toMatch(new RegExp(`^${session_name}=[\\w-]{43}; .*; domain=\\.api\\.example\\.com; HttpOnly$`));
    expect(deleted).toBe(`${session_name}=${DELETED}; HttpOnly`);
  });
});
