import { randomBytes } from "node:crypto";
import { secretSchema } from "../../src/keys/secret.js";
import { describe, expect, it } from "vitest";
import { memoryCounterStore, memorySessionStore, memoryUserStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import { SECRET } from "../helpers/app.js";

describe("createSessionAuthRouter options", () => {
  const userStore = memoryUserStore([]);
  const sessionStore = memorySessionStore();

  it("throws a TypeError at start-up for a missing store or secret, naming the option", () => {
    expect(() => createSessionAuthRouter({ sessionStore, secret: SECRET } as never)).toThrow(/createSessionAuthRouter: invalid options: userStore/);
    expect(() => createSessionAuthRouter({ userStore, secret: SECRET } as never)).toThrow(/sessionStore: must be a SessionStore/);
    expect(() => createSessionAuthRouter({ userStore, sessionStore })).toThrow(/secret: is required/);
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: "x".repeat(31) })).toThrow(/secret: must be at least 32 characters/);
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, idleTimeout: 0 })).toThrow(TypeError);
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, baseUrl: "not a url" })).toThrow(/baseUrl/);
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, sessionName: "bad name;" })).toThrow(/sessionName/);
    // A counter store written before decrement existed would fail every correct login: refused now.
    const oldShape = { increment: async () => 1, get: async () => 0, delete: async () => undefined };
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, counterStore: oldShape as never })).toThrow(
      /counterStore: must be a CounterStore \(with increment, decrement, get, delete\)/,
    );
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, hashing: { maxWait: 1e7 } })).toThrow(/hashing\.maxWait/);
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, unknownOption: 1 } as never)).toThrow(/unknownOption/);
    expect(() => createSessionAuthRouter(null as never)).toThrow(TypeError);
  });

  it("refuses an absoluteTimeout longer than the session store keeps a session (a sealed cookie's maxAgeSeconds)", () => {
    const sealed = sealedCookieStore({ password: SECRET, revocations: memoryCounterStore({ whenFull: "reject" }), maxAgeSeconds: 3600 });
    expect(() => createSessionAuthRouter({ userStore, sessionStore: sealed, secret: SECRET })).toThrow(
      /createSessionAuthRouter: invalid options: absoluteTimeout: must not be longer than the session store keeps a session/,
    );
    expect(() => createSessionAuthRouter({ userStore, sessionStore: sealed, secret: SECRET, absoluteTimeout: 3600, idleTimeout: 1800 })).not.toThrow();
  });

  it("refuses a secret that is long but not random, and says how to make one", () => {
    const weakOnes = ["a".repeat(32), "abc".repeat(11), "0123401234".repeat(4), "0123456789abcdef".repeat(2), "correct-horse".repeat(3)];
    // Repeated, but not whole: a pattern with a tail, a period that does not divide the length, a run and then a few others.
    weakOnes.push(
      "password".repeat(4) + "1",
      "changeme".repeat(4) + "!",
      "0123456789".repeat(3) + "01",
      "ab".repeat(12) + "abcdefgh",
      "a".repeat(24) + "bcdefgh1",
      "ABCDEFGH".repeat(4) + " ",
    );
    for (const weak of weakOnes) {
      expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: weak }), weak).toThrow(/secret: looks weak .*npx services-session-auth secret/);
    }
    // Hex from a random generator (16 symbols, 128 bits in 32 characters) and base64url both pass.
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: "9f86d081884c7d659a2feaa0c55ad015" })).not.toThrow();
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: "Zm9vYmFyLXNlY3JldC1rZXktbWF0ZXJpYWwtMDEyMzQ1" })).not.toThrow();
    // Whatever a generator gives: 5,000 of each common encoding, none refused (the rule itself, without building an app each time).
    for (const make of [
      () => randomBytes(16).toString("hex"),
      () => randomBytes(32).toString("hex"),
      () => randomBytes(24).toString("base64"),
      () => randomBytes(32).toString("base64url"),
    ]) {
      for (let i = 0; i < 5000; i++) {
        const secret = make();
        expect(secretSchema.safeParse(secret).success, secret).toBe(true);
      }
    }
  });

  it("takes every duration in seconds, and an idle timeout no longer than the absolute one", () => {
    const base = { userStore, sessionStore, secret: SECRET };
    expect(() => createSessionAuthRouter({ ...base, storeTimeout: 2000 })).toThrow(/storeTimeout: is in seconds/);
    expect(() => createSessionAuthRouter({ ...base, storeTimeout: 0.5 })).not.toThrow();
    expect(() => createSessionAuthRouter({ ...base, storeTimeout: 1e-300 })).toThrow(/storeTimeout: is in seconds \(at least 0.01\)/);
    expect(() => createSessionAuthRouter({ ...base, idleTimeout: 120 })).not.toThrow();
    expect(() => createSessionAuthRouter({ ...base, idleTimeout: 120, touchInterval: 180 })).toThrow(/touchInterval: must be shorter than idleTimeout/);
    // Against the idle timeout in force: unset, it follows a short absolute timeout down.
    expect(() => createSessionAuthRouter({ ...base, absoluteTimeout: 3600, touchInterval: 5000 })).toThrow(/touchInterval: must be shorter than idleTimeout/);
    expect(() => createSessionAuthRouter({ ...base, idleTimeout: 7200, absoluteTimeout: 3600 })).toThrow(
      /idleTimeout: must not be longer than absoluteTimeout/,
    );
    expect(() => createSessionAuthRouter({ ...base, idleTimeout: 3_000_000 })).toThrow(/idleTimeout/);
    // Unset, the idle timeout follows a short absolute one down.
    expect(() => createSessionAuthRouter({ ...base, absoluteTimeout: 3600 })).not.toThrow();
  });

  it("refuses a cookie option that would end or extend the Set-Cookie header", () => {
    const base = { userStore, sessionStore, secret: SECRET };
    for (const cookieDomain of ["example.com; Path=/x", ".example.com\r\nSet-Cookie: x=1", "exa mple.com", "example.com,evil"]) {
      expect(() => createSessionAuthRouter({ ...base, cookieDomain }), JSON.stringify(cookieDomain)).toThrow(/cookieDomain: must be a domain/);
    }
    for (const sessionName of ["SESS x", "SESS;x", "SESS\nx", "SESS=x", ""]) {
      expect(() => createSessionAuthRouter({ ...base, sessionName }), JSON.stringify(sessionName)).toThrow(/sessionName/);
    }
    expect(() => createSessionAuthRouter({ ...base, cookieDomain: ".my_api.example.com" })).not.toThrow();
  });

  it("refuses cookie and endpoint options that could not be honoured, at start-up", () => {
    const base = { userStore, sessionStore, secret: SECRET };
    expect(() => createSessionAuthRouter({ ...base, cookieDomain: ".example.com; secure" })).toThrow(/cookieDomain/);
    expect(() => createSessionAuthRouter({ ...base, sameSite: "none" })).toThrow(/sameSite "none" needs cookieSecure: "always"/);
    expect(() => createSessionAuthRouter({ ...base, sameSite: "none", cookieSecure: "auto" })).toThrow(/sameSite/);
    expect(() => createSessionAuthRouter({ ...base, sameSite: "None" as never })).toThrow(/sameSite/);
    expect(() => createSessionAuthRouter({ ...base, parsers: ["application/xml" as never] })).toThrow(/parsers/);
    expect(() => createSessionAuthRouter({ ...base, endpointName: "" })).toThrow(/endpointName/);
    expect(() =>
      createSessionAuthRouter({ ...base, sameSite: "none", cookieSecure: "always", parsers: [], endpointName: "api", clearSiteData: true }),
    ).not.toThrow();
  });

  it("accepts csrfToken in place of secret, and leaves the caller's object untouched", () => {
    const options = Object.freeze({ userStore, sessionStore, csrfToken: (sessid: string) => sessid.split("").reverse().join("") });
    expect(() => createSessionAuthRouter(options)).not.toThrow();
    expect(Object.keys(options)).toEqual(["userStore", "sessionStore", "csrfToken"]);
  });

  it("fills defaults without touching the caller's nested objects", () => {
    const throttle = Object.freeze({ userLimit: 3 });
    const hashing = Object.freeze({ maxQueue: 10 });
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, throttle, hashing })).not.toThrow();
    expect(throttle).toEqual({ userLimit: 3 });
    expect(hashing).toEqual({ maxQueue: 10 });
  });
});
