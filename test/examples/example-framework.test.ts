/** `EXAMPLE_FRAMEWORK=express|fastify|hono npm start`: server.ts starts the example on each, and it answers. */
import { describe, expect, it } from "vitest";
import { startExample } from "../helpers/example-server.js";

describe("examples/sports-api/server.ts", () => {
  it.each(["express", "fastify", "hono"])(
    "serves the example on %s",
    async (framework) => {
      const { port, output, stop } = await startExample({ EXAMPLE_FRAMEWORK: framework });
      try {
        expect(output()).toContain(`(${framework})`);
        const login = await fetch(`http://127.0.0.1:${port}/services/json/user/login.json`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: "username=demo&password=demo-password",
        });
        const { session_name, sessid } = (await login.json()) as { session_name: string; sessid: string };
        const players = await fetch(`http://127.0.0.1:${port}/services/json/players`, { headers: { Cookie: `${session_name}=${sessid}` } });
        expect([players.status, players.headers.get("content-type")]).toEqual([200, "application/json"]);
        // Drupal's cookies only, unless DEVICE_COOKIES says otherwise.
        expect(login.headers.getSetCookie().map((cookie) => cookie.split("=")[0])).toEqual([session_name]);
      } finally {
        stop();
      }
    },
    60_000,
  );
});
