import { describe, expect, it } from "vitest";
import { drupalSessionName } from "services-session-auth";
import { createTestApp } from "../helpers/app.js";

describe("drupalSessionName", () => {
  it("matches the names Drupal 7 derives (drupal_settings_initialize(), worked examples)", () => {
    expect(drupalSessionName({ host: "example.com", secure: false })).toBe("SESSa379a6f6eeafb9a55e378c118034e275");
    expect(drupalSessionName({ host: "localhost:8080", secure: false })).toBe("SESS8b1fdc44bdaf9d6b7bdfa8b474864cbc");
    expect(drupalSessionName({ host: "EXAMPLE.com", secure: true })).toBe("SSESSa379a6f6eeafb9a55e378c118034e275");
  });

  it("prefers the cookie domain, then the base URL without its scheme", () => {
    expect(drupalSessionName({ baseUrl: "https://example.com", host: "other", secure: false })).toBe("SESSa379a6f6eeafb9a55e378c118034e275");
    expect(drupalSessionName({ baseUrl: "https://example.com/", host: "other", secure: false })).toBe("SESSa379a6f6eeafb9a55e378c118034e275");
    // Expected values from `printf '%s' INPUT | sha256sum`, first 32 hex characters, as drupal_settings_initialize() takes them.
    // ".example.com": 1496295b2be8c88d729a34163e6885b0…; "example.com/drupal": 91f0f7d6f3d53d665b38369ecf840cb6…
    expect(drupalSessionName({ cookieDomain: ".example.com", baseUrl: "https://example.com", host: "x", secure: false })).toBe(
      "SESS1496295b2be8c88d729a34163e6885b0",
    );
    expect(drupalSessionName({ cookieDomain: ".example.com", host: "x", secure: true })).toBe("SSESS1496295b2be8c88d729a34163e6885b0");
    expect(drupalSessionName({ baseUrl: "http://example.com/drupal", host: "x", secure: false })).toBe("SESS91f0f7d6f3d53d665b38369ecf840cb6");
  });

  it("puts a dot before a www. host, as core 7.85+", () => {
    // `printf '%s' '.www.example.com' | sha256sum` starts 0e9f0e2600e4d8f26827597c5e324261.
    expect(drupalSessionName({ host: "www.example.com", secure: false })).toBe("SESS0e9f0e2600e4d8f26827597c5e324261");
    expect(drupalSessionName({ baseUrl: "https://www.example.com", host: "x", secure: false })).toBe("SESS0e9f0e2600e4d8f26827597c5e324261");
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
