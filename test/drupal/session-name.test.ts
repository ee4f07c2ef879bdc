import { describe, expect, it } from "vitest";
import { drupalSessionName } from "services-session-auth";
import { createTestApp } from "../helpers/app.js";

describe("drupalSessionName", () => {
  it("matches the names Drupal 7 derives (reference §4.1 worked examples)", () => {
    expect(drupalSessionName({ host: "example.com", secure: false })).toBe("SESSa379a6f6eeafb9a55e378c118034e275");
    expect(drupalSessionName({ host: "localhost:8080", secure: false })).toBe("SESS8b1fdc44bdaf9d6b7bdfa8b474864cbc");
    expect(drupalSessionName({ host: "EXAMPLE.com", secure: true })).toBe("SSESSa379a6f6eeafb9a55e378c118034e275");
  });

  it("prefers the cookie domain, then the base URL without its scheme", () => {
    expect(drupalSessionName({ baseUrl: "https://example.com", host: "other", secure: false })).toBe("SESSa379a6f6eeafb9a55e378c118034e275");
    expect(drupalSessionName({ baseUrl: "https://example.com/", host: "other", secure: false })).toBe("SESSa379a6f6eeafb9a55e378c118034e275");
    const fromDomain = drupalSessionName({ cookieDomain: ".example.com", baseUrl: "https://example.com", host: "x", secure: false });
    expect(fromDomain).not.toBe("SESSa379a6f6eeafb9a55e378c118034e275");
    expect(fromDomain).toMatch(/^SESS[0-9a-f]{32}$/);
  });

  it("puts a dot before a www. host, as core 7.85+", () => {
    expect(drupalSessionName({ host: "www.example.com", secure: false })).toBe(drupalSessionName({ cookieDomain: ".www.example.com", host: "", secure: false }));
  });

  it("derives the router's cookie name from the Host header when nothing is configured", async () => {
    const { agent } = createTestApp({ baseUrl: undefined });
    const res = await agent.post("/services/json/system/connect").set("Host", "example.com").send();
    expect((res.body as { session_name: string }).session_name).toBe("SESSa379a6f6eeafb9a55e378c118034e275");
  });

  it("uses an explicit sessionName as given", async () => {
    const { agent } = createTestApp({ sessionName: "SESSfixed" });
    const res = await agent.post("/services/json/system/connect").send();
    expect((res.body as { session_name: string }).session_name).toBe("SESSfixed");
  });
});
