import { describe, expect, it } from "vitest";
import { createSessionAuthRouter, memorySessionStore, memoryUserStore, sessionTokenHandler } from "services-session-auth";
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
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, counterStore: oldShape as never })).toThrow(/counterStore: must be a CounterStore \(with increment, decrement, get, delete\)/);
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, hashing: { maxWait: 1e7 } })).toThrow(/hashing\.maxWait/);
    expect(() => createSessionAuthRouter({ userStore, sessionStore, secret: SECRET, unknownOption: 1 } as never)).toThrow(/unknownOption/);
    expect(() => createSessionAuthRouter(null as never)).toThrow(TypeError);
  });

  it("refuses cookie and endpoint options that could not be honoured, at start-up", () => {
    const base = { userStore, sessionStore, secret: SECRET };
    expect(() => createSessionAuthRouter({ ...base, cookieDomain: ".example.com; secure" })).toThrow(/cookieDomain/);
    expect(() => createSessionAuthRouter({ ...base, sameSite: "none" })).toThrow(/sameSite "none" needs cookieSecure: "always"/);
    expect(() => sessionTokenHandler({ ...base, sameSite: "none", cookieSecure: "auto" })).toThrow(/sameSite/);
    expect(() => createSessionAuthRouter({ ...base, sameSite: "None" as never })).toThrow(/sameSite/);
    expect(() => createSessionAuthRouter({ ...base, parsers: ["application/xml" as never] })).toThrow(/parsers/);
    expect(() => createSessionAuthRouter({ ...base, endpointName: "" })).toThrow(/endpointName/);
    expect(() => createSessionAuthRouter({ ...base, sameSite: "none", cookieSecure: "always", parsers: [], endpointName: "api", clearSiteData: true })).not.toThrow();
  });

  it("accepts csrfToken in place of secret, and leaves the caller's object untouched", () => {
    const options = Object.freeze({ userStore, sessionStore, csrfToken: (sessid: string) => sessid.split("").reverse().join("") });
    expect(() => createSessionAuthRouter(options)).not.toThrow();
    expect(Object.keys(options)).toEqual(["userStore", "sessionStore", "csrfToken"]);
  });

  it("lets one options object serve the router and the token handler", () => {
    const auth = { userStore, sessionStore, secret: SECRET, throttle: { userLimit: 3 } };
    expect(() => sessionTokenHandler(auth)).not.toThrow();
  });
});
