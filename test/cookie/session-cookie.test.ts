import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sessionCookieFor } from "services-session-auth";
import { createTestApp, setCookies } from "../helpers/app.js";

const hash = (input: string) => createHash("sha256").update(input).digest("hex").slice(0, 32);

describe("sessionCookieFor", () => {
  it("gives the name, Domain and flags Drupal 7 gives a client of that URL", () => {
    expect(sessionCookieFor("http://example.com/")).toMatchObject({
      name: "SESSa379a6f6eeafb9a55e378c118034e275",
      domain: ".example.com",
      path: "/",
      secure: false,
      httpOnly: true,
      sameSite: undefined,
      maxAge: 2_000_000,
      alsoDeletedAt: [undefined],
    });
    const https = sessionCookieFor("https://api.example.com:8443/services/json");
    expect([https.name, https.domain, https.secure]).toEqual([`SSESS${hash("api.example.com:8443")}`, ".api.example.com", true]);
    expect(https.setCookie).toMatch(
      new RegExp(`^${https.name}=<sessid>; expires=[^;]+ GMT; Max-Age=2000000; path=/; domain=\\.api\\.example\\.com; secure; HttpOnly$`),
    );
    // Core 7.85+: a www. host keeps its www. in the Domain and gets a dot in front for the name.
    expect(sessionCookieFor("http://www.example.com")).toMatchObject({ name: `SESS${hash(".www.example.com")}`, domain: ".www.example.com" });
    for (const url of ["http://localhost:3000", "http://127.0.0.1:18960", "http://[::1]:3000"]) expect(sessionCookieFor(url).domain, url).toBeUndefined();
    expect(sessionCookieFor("http://127.0.0.1:18960").name).toBe("SESS50a8fe63d5d38e9b6b3330bb79f75283");
  });

  it("follows the router's options, and ignores the ones that do not shape the cookie", () => {
    const { options } = createTestApp({ cookieDomain: ".example.com", sameSite: "lax", absoluteTimeout: 86_400 });
    const cookie = sessionCookieFor("https://api.example.com", options);
    expect(cookie).toMatchObject({ name: `SSESS${hash(".example.com")}`, domain: ".example.com", sameSite: "Lax", maxAge: 86_400 });
    expect(cookie.alsoDeletedAt).toEqual([undefined, ".api.example.com"]);
    expect(sessionCookieFor("http://api.example.com", { cookieSecure: "always", sessionName: "SESSfixed" })).toMatchObject({ name: "SESSfixed", secure: true });
  });

  it("describes what the router really sends", async () => {
    const { agent, options } = createTestApp({ baseUrl: undefined });
    const res = await agent.post("/services/json/user/login").set("Host", "sports.example.com").send({ username: "demo", password: "demo-password" });
    const { sessid } = res.body as { sessid: string };
    const described = sessionCookieFor("http://sports.example.com", options);
    const strip = (header: string) => header.replace(/expires=[^;]+;/, "expires=…;");
    expect(setCookies(res).map(strip)).toEqual([strip(described.setCookie.replace("<sessid>", sessid))]);
  });

  it("refuses what is not an http(s) URL, and invalid options", () => {
    expect(() => sessionCookieFor("ftp://example.com")).toThrow(TypeError);
    expect(() => sessionCookieFor("example.com")).toThrow(TypeError);
    expect(() => sessionCookieFor("https://example.com", { sameSite: "none" })).toThrow(/cookieSecure/);
  });
});
