/** The example's node:http front for a fetch handler: a reply that fails before it is sent becomes an answer of its own, never a reset. */
import type { AddressInfo } from "node:net";
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { serveFetch } from "../../examples/sports-api/serve-fetch.js";

function send(port: number, method: string) {
  return new Promise<{ status: number; reason: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path: "/" }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, reason: res.statusMessage!, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("serveFetch", () => {
  it("answers a failed reply with a bare 500 (nothing of it), and a method a Request cannot carry with a 405", async () => {
    const server = serveFetch(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.error(new Error("the body broke"));
            },
          }),
          { statusText: "OK", headers: { "Set-Cookie": "SESSx=fresh", "Content-Type": "application/json" } },
        ),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const failed = await send(port, "GET");
      expect([failed.status, failed.reason]).toEqual([500, "Internal Server Error"]);
      expect(failed.headers).not.toHaveProperty("set-cookie");
      expect(failed.headers).not.toHaveProperty("content-type");
      const trace = await send(port, "TRACE");
      expect([trace.status, trace.headers.allow]).toEqual([405, "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"]);
    } finally {
      server.close();
    }
  });
});
