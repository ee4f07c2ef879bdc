/**
 * A fetch handler served by `node:http` with the glue the README's "fetch on Node's http" quick
 * start prints (headers as sent, body streamed, the `Response` written back with each
 * `Set-Cookie` its own). Every fetch configuration (bare, floor, the package's handler) runs
 * through this same glue, so their ratios measure the handlers, not the glue.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** The app: a Web `Request` in, a `Response` out; `incoming` is Node's request, for the client's address. */
export type FetchApp = (request: Request, incoming: IncomingMessage) => Promise<Response>;

/** A `node:http` server over `app`; `onError` answers what `app` throws (the package's `errorResponse`, or a bare 500). */
export function nodeFetchServer(app: FetchApp, onError: (error: unknown, request: Request) => Response = () => new Response(null, { status: 500 })): Server {
  async function serveNode(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const body = req.method === "GET" || req.method === "HEAD" ? null : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
    const url = new URL(req.url ?? "/", "http://localhost");
    const request = new Request(url, { method: req.method, headers, body, duplex: "half" } as RequestInit);
    const response = await app(request, req).catch((error: unknown) => onError(error, request));
    const payload = Buffer.from(await response.arrayBuffer());
    res.statusCode = response.status;
    if (response.statusText) res.statusMessage = response.statusText;
    for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader("Set-Cookie", cookies);
    res.end(payload);
  }
  return createServer((req, res) => {
    serveNode(req, res).catch(() => res.writeHead(400).end());
  });
}
