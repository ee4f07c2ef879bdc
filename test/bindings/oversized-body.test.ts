/**
 * An upload over the body limit gets a 413 the client reads, on every binding: a raw socket
 * writes the whole body before it reads anything (the hardest case; see
 * test/fuzz/oversized-body.test.ts for Express's every variant). On Fastify the plugin closes
 * the connection as the Express router does; the fetch handler leaves the connection to the
 * server, here the example's node:http adapter, which reads and drops the rest.
 */
import { describe, expect, it } from "vitest";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";
import { statusLine, upload } from "../helpers/raw-upload.js";

const MB = 1024 * 1024;

describe.each(FRAMEWORKS)("oversized uploads on %s", (binding) => {
  it("get the 413, declared and chunked, JSON and form, and the server stays up", async () => {
    const { server } = await bindingApp(binding);
    server.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as { port: number };
    try {
      for (const [i, size] of [2 * MB, 10 * MB, 3 * MB, 10 * MB].entries()) {
        const request = {
          path: i % 2 === 0 ? "/services/json/user/login" : "/?q=services/json/system/connect.json",
          size,
          chunked: i >= 2,
          contentType: i === 1 ? "application/x-www-form-urlencoded" : "application/json",
        };
        const outcome = await upload(port, request);
        expect(statusLine(outcome.reply), JSON.stringify(request)).toBe("HTTP/1.1 413 : Request body too large.");
        expect(outcome.reply.endsWith('["Request body too large."]')).toBe(true);
        expect(outcome, JSON.stringify(request)).toMatchObject({ written: size, writeError: undefined, readError: undefined });
      }
      expect((await fetch(`http://127.0.0.1:${port}/services/session/token`)).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});
