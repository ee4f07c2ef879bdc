import { describe, expect, it, onTestFinished, vi } from "vitest";
import { isSessionAuthError, type PasswordHasher } from "services-session-auth";
import { HashAdmission } from "../../src/login/admission.js";
import { listen, postJson, type Reply } from "../helpers/clients.js";
import { createTestApp, fastHasher } from "../helpers/app.js";

/** Tasks that finish only when the test says so, recording the order they started in. */
function gates() {
  const started: string[] = [];
  const open = new Map<string, () => void>();
  return {
    started,
    task: (label: string) => () =>
      new Promise<string>((resolve) => {
        started.push(label);
        open.set(label, () => resolve(label));
      }),
    finish(label: string) {
      open.get(label)!();
      open.delete(label);
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("HashAdmission", () => {
  it("runs at most `concurrency` tasks at once", async () => {
    const admission = new HashAdmission({ concurrency: 2, maxWait: 60, maxQueue: 100 });
    const g = gates();
    const done = ["a", "b", "c", "d"].map((label) => admission.run("x", g.task(label)));
    await flush();
    expect(g.started).toEqual(["a", "b"]);
    expect(admission.load).toEqual({ running: 2, waiting: 2 });
    g.finish("a");
    await flush();
    expect(g.started).toEqual(["a", "b", "c"]);
    for (const label of ["b", "c"]) g.finish(label);
    await flush();
    g.finish("d");
    await expect(Promise.all(done)).resolves.toEqual(["a", "b", "c", "d"]);
    expect(admission.load).toEqual({ running: 0, waiting: 0 });
  });

  it("takes each task without a client address as a client of its own, never one shared turn", async () => {
    const admission = new HashAdmission({ concurrency: 1, maxWait: 60, maxQueue: 100 });
    const g = gates();
    const done = [
      admission.run("a", g.task("a1")),
      admission.run("a", g.task("a2")),
      admission.run(undefined, g.task("u1")),
      admission.run(undefined, g.task("u2")),
    ];
    await flush();
    for (const label of ["a1", "u1", "u2", "a2"]) {
      g.finish(label);
      await flush();
    }
    // One shared "unknown" client would have had its turn after u1, and a2 would have gone before u2.
    expect(g.started).toEqual(["a1", "u1", "u2", "a2"]);
    await expect(Promise.all(done)).resolves.toEqual(["a1", "a2", "u1", "u2"]);
  });

  it("starts a priority task (a locked-out device cookie's holder) ahead of the client queues, taking turns with them, and makes room for it in a full one", async () => {
    const admission = new HashAdmission({ concurrency: 1, maxWait: 60, maxQueue: 5 });
    const g = gates();
    // A burst from many addresses, one login each, fills the queue.
    const burst = Array.from({ length: 6 }, (_, i) => admission.run(`10.0.0.${i}`, g.task(`n${i}`)).catch((error: unknown) => error));
    await flush();
    expect(admission.load).toEqual({ running: 1, waiting: 5 });
    const first = admission.run("198.51.100.7", g.task("device"), "account-1");
    const second = admission.run("198.51.100.8", g.task("device2"), "account-2");
    await flush();
    // Room was made by turning away the newest waiting tasks.
    expect(admission.load).toEqual({ running: 1, waiting: 5 });
    for (let i = 0; i < 6; i += 1) {
      g.finish(g.started.at(-1)!);
      await flush();
    }
    await Promise.all([first, second]);
    // One from the priority lane, then one from the client queues, in turn.
    expect(g.started).toEqual(["n0", "device", "n1", "device2", "n2", "n3"]);
    // The clients that came last were turned away.
    const refused = (await Promise.all(burst)).map((result) => isSessionAuthError(result));
    expect(refused).toEqual([false, false, false, false, true, true]);
  });

  it("keeps one login per account in the priority lane: a loop of one holder's logins cannot starve the others", async () => {
    const admission = new HashAdmission({ concurrency: 1, maxWait: 60, maxQueue: 100 });
    const g = gates();
    const running = admission.run("10.0.0.1", g.task("n0"));
    const others = [admission.run("10.0.0.2", g.task("n1")), admission.run("10.0.0.3", g.task("n2"))];
    const loop = [0, 1, 2].map((i) => admission.run("198.51.100.7", g.task(`holder${i}`), "account-1"));
    await flush();
    for (let i = 0; i < 6; i += 1) {
      g.finish(g.started.at(-1)!);
      await flush();
    }
    await Promise.all([running, ...others, ...loop]);
    // The holder's first goes ahead; its others wait in its address's queue, in turn with everyone's.
    expect(g.started).toEqual(["n0", "holder0", "n1", "n2", "holder1", "holder2"]);
  });

  it("serves waiting clients in turn: a burst from one address waits behind itself", async () => {
    const admission = new HashAdmission({ concurrency: 1, maxWait: 60, maxQueue: 100 });
    const g = gates();
    const burst = Array.from({ length: 6 }, (_, i) => admission.run("attacker", g.task(`a${i}`)));
    await flush();
    const other = admission.run("other", g.task("b0"));
    const third = admission.run("third", g.task("c0"));
    for (let i = 0; i < 8; i += 1) {
      g.finish(g.started.at(-1)!);
      await flush();
    }
    await Promise.all([...burst, other, third]);
    // The first burst task had its turn: then the clients that had none, then the burst again.
    expect(g.started.slice(0, 4)).toEqual(["a0", "b0", "c0", "a1"]);
  });

  it("gives a freed slot to a waiting client that holds none before one whose burst holds some", async () => {
    const admission = new HashAdmission({ concurrency: 2, maxWait: 60, maxQueue: 100 });
    const g = gates();
    const burst = ["a0", "a1", "a2", "a3"].map((label) => admission.run("attacker", g.task(label)));
    await flush();
    const other = admission.run("other", g.task("b0"));
    g.finish("a0");
    await flush();
    // "attacker" was first in the rotation, but still holds a slot: "other" goes first.
    expect(g.started).toEqual(["a0", "a1", "b0"]);
    for (const label of ["a1", "b0", "a2", "a3"]) {
      g.finish(label);
      await flush();
    }
    await Promise.all([...burst, other]);
  });

  it("refuses at once a task that finds maxQueue waiting, with a Retry-After", async () => {
    const admission = new HashAdmission({ concurrency: 1, maxWait: 60, maxQueue: 2 });
    const g = gates();
    const accepted = [admission.run("a", g.task("1")), admission.run("b", g.task("2")), admission.run("c", g.task("3"))];
    const refused = await admission.run("d", g.task("4")).catch((error: unknown) => error);
    expect(isSessionAuthError(refused) && refused.code).toBe("ERR_LOGIN_BUSY");
    expect((refused as { retryAfter: number }).retryAfter).toBeGreaterThanOrEqual(1);
    for (const label of ["1", "2", "3"]) {
      await flush();
      g.finish(label);
    }
    await Promise.all(accepted);
    expect(g.started).toEqual(["1", "2", "3"]);
  });

  it("refuses at once a task whose estimated wait passes maxWait, counting its own queue", async () => {
    // Nothing measured yet: a check is assumed to take a second.
    const admission = new HashAdmission({ concurrency: 1, maxWait: 2.5, maxQueue: 100 });
    const g = gates();
    // "1" runs; "2" would start in about 1 s and "3" in about 2 s; "4" in about 3 s: too late.
    const runs = ["1", "2", "3"].map((label) => admission.run("a", g.task(label)));
    await expect(admission.run("a", g.task("4"))).rejects.toMatchObject({ code: "ERR_LOGIN_BUSY" });
    // Another client is not held to "a"'s queue: "a" just had its turn, so "b" goes next.
    const other = admission.run("b", g.task("b"));
    for (const label of ["1", "b", "2", "3"]) {
      await flush();
      g.finish(label);
    }
    await expect(other).resolves.toBe("b");
    await Promise.all(runs);
    expect(g.started).toEqual(["1", "b", "2", "3"]);
  });

  it("in a full queue, turns away the newest task of the longest queue rather than a newcomer", async () => {
    const admission = new HashAdmission({ concurrency: 1, maxWait: 60, maxQueue: 3 });
    const g = gates();
    const burst = ["a0", "a1", "a2", "a3"].map((label) => admission.run("a", g.task(label)));
    await flush();
    const newcomer = admission.run("b", g.task("b0"));
    await expect(burst[3]).rejects.toMatchObject({ code: "ERR_LOGIN_BUSY" });
    // One more from the longest queue is refused: its own queue would be the longest.
    await expect(admission.run("a", g.task("a4"))).rejects.toMatchObject({ code: "ERR_LOGIN_BUSY" });
    for (const label of ["a0", "b0", "a1", "a2"]) {
      await flush();
      g.finish(label);
    }
    await expect(newcomer).resolves.toBe("b0");
    await Promise.all(burst.slice(0, 3));
  });

  it("counts in its wait estimate only the clients whose turn comes first", async () => {
    // Each check takes a second of (fake) time. The queue is set up under a long maxWait,
    // then held to 2.5 s (the options are read as they stand).
    vi.useFakeTimers({ toFake: ["performance"] });
    onTestFinished(() => void vi.useRealTimers());
    const options = { concurrency: 1, maxWait: 60, maxQueue: 100 };
    const admission = new HashAdmission(options);
    const g = gates();
    const runs = [admission.run("a", g.task("a0")), admission.run("a", g.task("a1")), admission.run("b", g.task("b0")), admission.run("b", g.task("b1"))];
    await flush();
    vi.advanceTimersByTime(1000);
    g.finish("a0");
    await flush();
    options.maxWait = 2.5;
    // "b0" runs; "a1" and "b1" wait, but both clients have had a turn: a newcomer's comes
    // next, about one check away, not three.
    const newcomer = admission.run("d", g.task("d0"));
    for (const label of ["b0", "d0", "a1", "b1"]) {
      await flush();
      g.finish(label);
    }
    await expect(newcomer).resolves.toBe("d0");
    await Promise.all(runs);
    expect(g.started).toEqual(["a0", "b0", "d0", "a1", "b1"]);
  });

  it("gives back the slot of a check that never settles, and answers its login 503", async () => {
    vi.useFakeTimers();
    try {
      const admission = new HashAdmission({ concurrency: 1, maxWait: 120, maxQueue: 100 });
      const hung = admission.run("a", () => new Promise<never>(() => undefined));
      const next = admission.run("b", async () => "b");
      const outcome = expect(hung).rejects.toMatchObject({ code: "ERR_LOGIN_BUSY" });
      await vi.advanceTimersByTimeAsync(60_000);
      await outcome;
      await expect(next).resolves.toBe("b");
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a task still waiting at maxWait, and never runs it", async () => {
    const admission = new HashAdmission({ concurrency: 1, maxWait: 0.05, maxQueue: 100 });
    const g = gates();
    const first = admission.run("a", g.task("1"));
    const second = admission.run("b", g.task("2"));
    await expect(second).rejects.toMatchObject({ code: "ERR_LOGIN_BUSY" });
    expect(admission.load).toEqual({ running: 1, waiting: 0 });
    g.finish("1");
    await first;
    expect(g.started).toEqual(["1"]);
  });
});

/** A hasher whose every check waits for the test to let it finish, and records whose password it checks. */
function gatedHasher() {
  const checks: { password: string; finish: () => void }[] = [];
  const hasher: PasswordHasher = {
    ...fastHasher,
    verify: (hash, password) =>
      new Promise<boolean>((resolve) => {
        let done = false;
        checks.push({
          password,
          finish: () => {
            if (!done) void fastHasher.verify(hash, password).then(resolve);
            done = true;
          },
        });
      }),
  };
  return { hasher, checks };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(condition()).toBe(true);
}

describe("admission control behind the router", () => {
  it("answers a login refused on its input alone without queueing it for a check", async () => {
    const { hasher, checks } = gatedHasher();
    const test = createTestApp({ hasher, hashing: { concurrency: 1, maxQueue: 1, maxWait: 60 } });
    const server = await listen(test.app);
    try {
      const held = postJson(server.port, "/services/json/user/login", { username: "demo", password: "wrong" }, { from: "127.0.0.30" });
      await until(() => checks.length === 1);
      // The only slot is held: the name "0", a blank or an over-long password is still answered at once.
      for (const body of [
        { username: "0", password: "x" },
        { username: "demo", password: "   " },
        { username: "demo", password: "x".repeat(2000) },
      ]) {
        const reply = await postJson(server.port, "/services/json/user/login", body, { from: "127.0.0.31" });
        expect([reply.status, reply.body]).toEqual([401, '["Wrong username or password."]']);
      }
      checks[0]!.finish();
      expect((await held).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it("lets another address's login past a burst from one address after at most one check", async () => {
    const { hasher, checks } = gatedHasher();
    const test = createTestApp({ hasher, hashing: { concurrency: 1, maxWait: 60 } });
    const server = await listen(test.app);
    try {
      const burst = Array.from({ length: 20 }, (_, i) =>
        postJson(server.port, "/services/json/user/login", { username: `bot-${i}`, password: `burst-${i}` }, { from: "127.0.0.2" }),
      );
      await until(() => checks.length === 1);
      const real = postJson(server.port, "/services/json/user/login", { username: "demo", password: "demo-password" }, { from: "127.0.0.3" });
      // Counted, then queued for its check in the same step.
      for (let i = 0; i < 2000 && (await test.counterStore.get("ip:127.0.0.3")) === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
      await new Promise((resolve) => setTimeout(resolve, 10));
      // Let checks finish one at a time, in the order they started, until the real one starts.
      let finished = 0;
      while (!checks.some((check) => check.password === "demo-password")) {
        checks[finished]!.finish();
        finished += 1;
        await until(() => checks.length > finished);
      }
      const before = checks.findIndex((check) => check.password === "demo-password");
      // One burst check was running; the next turn was the other address's.
      expect(before).toBe(1);
      const drain = setInterval(() => checks.forEach((check) => check.finish()), 2);
      try {
        expect((await real).status).toBe(200);
        expect((await Promise.all(burst)).map((reply) => reply.status)).toEqual(Array(20).fill(401));
      } finally {
        clearInterval(drain);
      }
    } finally {
      await server.close();
    }
  });

  it("answers 503 with Retry-After at once when the queue is full, without counting the attempt or touching the session", async () => {
    const { hasher, checks } = gatedHasher();
    const test = createTestApp({ hasher, hashing: { concurrency: 1, maxQueue: 2, maxWait: 60 }, throttle: { userLimit: 1 } });
    const server = await listen(test.app);
    try {
      const waiting = Array.from({ length: 3 }, (_, i) =>
        postJson(server.port, "/services/json/user/login", { username: "demo", password: `wrong-${i}` }, { from: `127.0.0.${10 + i}` }),
      );
      await until(() => checks.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const before = await test.counterStore.get("ip:127.0.0.20");
      const refused: Reply = await postJson(server.port, "/services/json/user/login", { username: "demo", password: "demo-password" }, { from: "127.0.0.20" });
      expect(refused.status).toBe(503);
      expect(refused.reason).toBe(": Too many logins at once: try again shortly.");
      expect(refused.body).toBe('["Too many logins at once: try again shortly."]');
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(refused.headers["set-cookie"]).toBeUndefined();
      await expect(test.counterStore.get("ip:127.0.0.20")).resolves.toBe(before);
      expect(test.events.filter((e) => e.type === "login.busy")).toEqual([
        { type: "login.busy", ip: "127.0.0.20", retryAfter: expect.any(Number), timestamp: expect.any(Number) },
      ]);
      const drain = setInterval(() => checks.forEach((check) => check.finish()), 2);
      try {
        expect((await Promise.all(waiting)).map((reply) => reply.status)).toEqual([401, 401, 401]);
        // Nor against the account: with a limit of one failure, the right password still gets in.
        const again = postJson(server.port, "/services/json/user/login", { username: "demo", password: "demo-password" }, { from: "127.0.0.20" });
        expect((await again).status).toBe(200);
      } finally {
        clearInterval(drain);
      }
    } finally {
      await server.close();
    }
  });
});
