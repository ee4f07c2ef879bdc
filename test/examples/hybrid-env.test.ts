import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp, demoUserStore } from "../../examples/sports-api/app.js";
import { httpsFromEnv, hybridOptionsFromEnv } from "../../examples/sports-api/hybrid.js";
import { fastHasher, SECRET } from "../helpers/app.js";

describe("examples/sports-api: hybrid options from the environment", () => {
  it("reads TRUSTED_ORIGINS, SESSION_SAMESITE and COOKIE_SECURE, and nothing when unset", () => {
    expect(hybridOptionsFromEnv({})).toEqual({});
    expect(
      hybridOptionsFromEnv({ TRUSTED_ORIGINS: " https://app.example.org, ,,capacitor://localhost", SESSION_SAMESITE: "None", COOKIE_SECURE: "always" }),
    ).toEqual({
      trustedOrigins: ["https://app.example.org", "capacitor://localhost"],
      sameSite: "none",
      cookieSecure: "always",
    });
    expect(() => hybridOptionsFromEnv({ SESSION_SAMESITE: "off" })).toThrow(/SESSION_SAMESITE must be lax, strict or none/);
    expect(() => hybridOptionsFromEnv({ COOKIE_SECURE: "yes" })).toThrow(/COOKIE_SECURE must be auto or always/);
    expect(hybridOptionsFromEnv({ ADMIT_CROSS_SITE_WITHOUT_ORIGIN: "1" })).toEqual({ admitCrossSiteWithoutOrigin: true });
    expect(() => hybridOptionsFromEnv({ ADMIT_CROSS_SITE_WITHOUT_ORIGIN: "yes" })).toThrow(/must be 1 or 0/);
  });

  it("refuses to start with null in TRUSTED_ORIGINS, and says what a file: app sets instead", async () => {
    const userStore = demoUserStore(fastHasher);
    await userStore.ready;
    const extra = hybridOptionsFromEnv({ TRUSTED_ORIGINS: "capacitor://localhost,null" });
    expect(() => createApp({ secret: SECRET, userStore, hasher: fastHasher, extra })).toThrow(
      /trustedOrigins\.1: must not be null.*ADMIT_CROSS_SITE_WITHOUT_ORIGIN=1|trustedOrigins\.1: must not be null.*admitCrossSiteWithoutOrigin/s,
    );
  });

  it("reads HTTPS_CERT and HTTPS_KEY together, or neither", () => {
    const dir = mkdtempSync(join(tmpdir(), "hybrid-env-"));
    writeFileSync(join(dir, "cert.pem"), "CERT");
    writeFileSync(join(dir, "key.pem"), "KEY");
    expect(httpsFromEnv({})).toBeUndefined();
    expect(httpsFromEnv({ HTTPS_CERT: join(dir, "cert.pem"), HTTPS_KEY: join(dir, "key.pem") })).toEqual({
      cert: Buffer.from("CERT"),
      key: Buffer.from("KEY"),
    });
    expect(() => httpsFromEnv({ HTTPS_CERT: join(dir, "cert.pem") })).toThrow(/go together/);
  });
});
