/** `DEVICE_COOKIES=true npm start`: the example turns device cookies on, so the protection can be tried without code. */
import { describe, expect, it } from "vitest";
import { loginOptionsFromEnv } from "../../examples/sports-api/login-env.js";
import { startExample } from "../helpers/example-server.js";

describe("examples/sports-api: DEVICE_COOKIES", () => {
  it("is read as true or false (1 or 0), and nothing when unset; anything else stops the start-up", () => {
    expect(loginOptionsFromEnv({})).toEqual({});
    expect(loginOptionsFromEnv({ DEVICE_COOKIES: " " })).toEqual({});
    for (const value of ["true", "TRUE", "1"]) expect(loginOptionsFromEnv({ DEVICE_COOKIES: value })).toEqual({ deviceCookies: true });
    for (const value of ["false", "0"]) expect(loginOptionsFromEnv({ DEVICE_COOKIES: value })).toEqual({ deviceCookies: false });
    expect(() => loginOptionsFromEnv({ DEVICE_COOKIES: "yes" })).toThrow(/DEVICE_COOKIES must be true or false/);
  });

  it.each(["express", "fastify", "hono"])(
    "sets the device cookie at login on %s, and lets its holder in when its address is locked",
    async (framework) => {
      // A trusted loopback proxy, so the test can name the client's address.
      const { port, output, stop } = await startExample({ EXAMPLE_FRAMEWORK: framework, DEVICE_COOKIES: "true", TRUST_PROXY: "loopback" });
      const login = (from: string, password: string, cookie?: string) =>
        fetch(`http://127.0.0.1:${port}/services/json/user/login.json`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Forwarded-For": from, ...(cookie === undefined ? {} : { Cookie: cookie }) },
          body: JSON.stringify({ username: "demo", password }),
        });
      try {
        expect(output()).toContain("device cookies on");
        const first = await login("198.51.100.7", "demo-password");
        const [device, session] = first.headers.getSetCookie();
        expect([first.status, device?.split("=")[0], session?.startsWith("SESS")]).toEqual([200, "ssa_device", true]);
        // Others behind the same address lock the account there: the holder still gets in.
        for (let i = 0; i < 5; i += 1) expect((await login("198.51.100.7", `guess-${i}`)).status).toBe(401);
        expect((await login("198.51.100.7", "demo-password")).status).toBe(406);
        expect((await login("198.51.100.7", "demo-password", device!.split(";")[0])).status).toBe(200);
      } finally {
        stop();
      }
    },
    60_000,
  );
});
