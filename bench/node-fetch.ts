/**
 * A fetch handler served by `node:http`, with the glue an app writes for it: the request as a
 * Web `Request` (its body streamed for methods that have one), the `Response` written back.
 * Every fetch configuration (bare, floor, the package's handler) runs through this same glue,
 * so their ratios measure what each handler does, not the glue.
 */
import { createServer, type Server } from "node:http";
import { Readable } from "node:stream";

/** What a handler gets beside the `Request`: the peer's address, which a `Request` does not carry. */
export interface NodeFetchInfo {
  readonly clientAddress: string | undefined;
}

/** A `node:http` server answering every request with `handler`'s `Response` (a 500 when it throws). */
export function nodeFetchServer(handler: (request: Request, info: NodeFetchInfo) => Promise<Response>): Server {
  return createServer((req, res) => {
    const headers = new Headers();
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    const method = req.method ?? "GET";
    const hasBody = method !== "GET" && method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
      method,
      headers,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit);
    handler(request, { clientAddress: req.socket.remoteAddress })
      .then(async (response) => {
        const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
        res.statusCode = response.status;
        if (response.statusText !== "") res.statusMessage = response.statusText;
        // Each Set-Cookie its own line: a Headers iterator yields them one by one.
        for (const [name, value] of response.headers) res.appendHeader(name, value);
        res.end(body);
      })
      .catch((error: unknown) => {
        console.error(error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
}
