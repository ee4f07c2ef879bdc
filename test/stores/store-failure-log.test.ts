import { expect, it, vi } from "vitest";
import { memorySessionStore } from "services-session-auth";
import { createTestApp, login } from "../helpers/app.js";
import { aroundMethods } from "../helpers/doubles.js";

it("writes a store's failures to stderr once a second per operation, with how many it left out: an outage is not a log storm", async () => {
  const written: string[] = [];
  const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (written.push(String(chunk)), true));
  vi.stubEnv("NODE_ENV", "production");
  try {
    let down = false;
    const sessionStore = aroundMethods(memorySessionStore(), (_name, call) => (down ? Promise.reject(new Error("ECONNREFUSED")) : call()));
    // No listener: faults go to stderr.
    const { app, agent } = createTestApp({ sessionStore, onEvent: undefined });
    const session = await login(app);
    down = true;
    for (let i = 0; i < 20; i++) expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(503);
    const failures = () => written.filter((line) => line.includes(" store.failure "));
    expect(failures()).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(503);
    expect(failures()).toHaveLength(2);
    expect(failures()[1]).toContain("operation=sessionStore.get (19 more in the second before)");
  } finally {
    vi.unstubAllEnvs();
    write.mockRestore();
  }
});
