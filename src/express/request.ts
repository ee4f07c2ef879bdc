import type { Request } from "express";
import { bodyArgument, requestMime } from "../drupal/body.js";
import type { ServicesRequest } from "../drupal/services.js";
import { SessionAuthError } from "../errors.js";

/** One request header's value (the first, if repeated). */
export function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** One query-string parameter, read without Express's query parser (whose shape differs between Express 4 and 5). */
export function queryParameter(req: Request, name: string): string | undefined {
  const url = req.originalUrl ?? req.url;
  const mark = url.indexOf("?");
  if (mark === -1) return undefined;
  return new URLSearchParams(url.slice(mark + 1)).get(name) ?? undefined;
}

/**
 * One field of a form body that the app's own body parser (`express.urlencoded()`, multer, …)
 * has already parsed into `req.body`; never a JSON body's, as Services reads `$_REQUEST`.
 */
export function formBodyParameter(req: Request, name: string): string | undefined {
  const mime = requestMime(header(req, "content-type")).toLowerCase();
  if (mime !== "application/x-www-form-urlencoded" && mime !== "multipart/form-data") return undefined;
  const value = bodyArgument(req.body, name);
  return typeof value === "string" ? value : undefined;
}

/** The client's address, as Express reports it (honouring `trust proxy`). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "";
}

/** The facts about a request the core needs, except its body. */
export function describe(req: Request): Omit<ServicesRequest, "body" | "negotiated"> {
  return {
    method: req.method,
    host: header(req, "host") ?? "",
    secure: req.secure,
    ip: clientIp(req),
    userAgent: header(req, "user-agent") ?? "",
    cookieHeader: header(req, "cookie"),
    csrfHeader: header(req, "x-csrf-token"),
    queryToken: queryParameter(req, "services_token"),
    loginVersion: header(req, "services-user-login-version"),
    origin: header(req, "origin"),
    fetchSite: header(req, "sec-fetch-site"),
  };
}

/**
 * Reads a request body up to `limit` bytes. A body an earlier parser (express.json(), …)
 * already consumed is taken as parsed. Over the limit (declared, or counted as a chunked
 * upload arrives): `ERR_BODY_TOO_LARGE` at once, with nothing more buffered; the 413 reply
 * then reads and discards the rest so that the client gets it (`closeAfterReply`).
 */
export function readBody(req: Request, limit: number): Promise<ServicesRequest["body"]> {
  const consumed = (req as Request & { _body?: boolean })._body === true || req.readableEnded;
  if (consumed) return Promise.resolve({ parsed: req.body === undefined ? "" : req.body });
  const contentType = header(req, "content-type");
  const declared = Number(header(req, "content-length"));
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new SessionAuthError("ERR_BODY_TOO_LARGE"));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd).off("error", reject);
      // Stop here: the chunks read so far are dropped, and the reply deals with the rest.
      req.pause();
      reject(new SessionAuthError("ERR_BODY_TOO_LARGE"));
    };
    const onEnd = () => resolve({ raw: Buffer.concat(chunks, size), contentType });
    req.on("data", onData).once("end", onEnd);
    // An aborted upload: no reply can reach the client, so this only ends the handler.
    req.once("error", reject);
  });
}
