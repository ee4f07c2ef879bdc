import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { Readable } from "node:stream";

/** Methods the fetch standard forbids in a `Request`. */
const UNCARRIED_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * A fetch handler (a Hono app's `fetch`) served by node:http: the Request as the socket brought it
 * (every header, the Host among them; the body streamed), and the Response written back with
 * its `statusText` as the reason phrase, which runtimes' own servers (@hono/node-server's
 * among them) replace with Node's. What the fetch binding answers, byte for byte. The
 * handler gets the IncomingMessage too, for the client's address (and as Hono's `env.incoming`).
 */
export function serveFetch(
  handler: (request: Request, incoming: IncomingMessage) => Response | Promise<Response>,
  tls?: { readonly cert: Buffer; readonly key: Buffer },
): Server {
  const scheme = tls === undefined ? "http" : "https";
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    void respond(req, res, handler, scheme).catch((error: unknown) => {
      // Before any reply, an answer rather than a reset: a method a Request cannot carry
      // (TRACE, TRACK, CONNECT) is not allowed here; anything else is the server's fault.
      if (res.headersSent) return void res.destroy(error as Error);
      // Nothing of the reply that failed (its cookies, its reason phrase) goes out with this one.
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      res.statusMessage = "";
      const uncarried = UNCARRIED_METHODS.has(req.method ?? "");
      res.statusCode = uncarried ? 405 : 500;
      if (uncarried) res.setHeader("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      res.setHeader("Content-Length", 0);
      res.end();
    });
  };
  return tls === undefined ? createServer(listener) : createHttpsServer(tls, listener);
}

/** The path and query of a request line's target: absolute-form (`http://host/a?b`) too, whose scheme and host the socket decides instead. */
function originForm(target: string): string {
  if (target.startsWith("/")) return target;
  const { pathname, search } = new URL(target, "http://localhost");
  return `${pathname}${search}`;
}

async function respond(
  req: IncomingMessage,
  res: ServerResponse,
  handler: (request: Request, incoming: IncomingMessage) => Response | Promise<Response>,
  scheme: string,
): Promise<void> {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const init = { method: req.method, headers, body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null, duplex: "half" } as RequestInit;
  const response = await handler(new Request(`${scheme}://localhost${originForm(req.url ?? "/")}`, init), req);
  res.statusCode = response.status;
  if (response.statusText !== "") res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("Set-Cookie", cookies);
  res.end(Buffer.from(await response.arrayBuffer()));
  // Answered before the whole upload arrived (a 413): read the rest and drop it, as Node does
  // for a body nobody read, so that a client still writing gets the reply, not a reset.
  if (!req.complete) {
    let dropped = 0;
    req.removeAllListeners("data");
    req.on("data", (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > 64 * 1024 * 1024) req.socket.destroy();
    });
    req.resume();
  }
}
