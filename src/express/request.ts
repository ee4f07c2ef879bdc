import type { Request } from "express";
import { plainAddress } from "../core/client-address.js";
import { bodyArgument, requestMime } from "../services/body.js";
import type { ServicesRequest } from "../services/endpoint.js";
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

/** The client's address, as Express reports it (honouring `trust proxy`), an IPv4 one as Drupal shows it (no `::ffff:`). */
export function clientIp(req: Request): string {
  return plainAddress(req.ip ?? req.socket.remoteAddress ?? "");
}

/**
 * The value of a `services_<resource>_<method>_version` header, whichever resource and
 * method it names, as Services reads it (`_services_version_header_options`). PHP folds `-`
 * and `_` in header names together, so `Services-User-Login-Version` counts as well.
 */
export function servicesVersionHeader(req: Request): string | undefined {
  let version: string | undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.length > 17 && name.startsWith("services") && name.endsWith("version") && VERSION_SEPARATORS.has(name[8]!) && VERSION_SEPARATORS.has(name[name.length - 8]!)) {
      version = Array.isArray(value) ? value[0] : value;
    }
  }
  return version;
}

const VERSION_SEPARATORS: ReadonlySet<string> = new Set(["_", "-"]);

/** The facts about a request the core needs, except its body. */
export function describe(req: Request): Omit<ServicesRequest, "body" | "format"> {
  return {
    method: req.method,
    host: header(req, "host") ?? "",
    secure: req.secure,
    ip: clientIp(req),
    userAgent: header(req, "user-agent") ?? "",
    cookieHeader: header(req, "cookie"),
    csrfHeader: header(req, "x-csrf-token"),
    queryToken: queryParameter(req, "services_token"),
    versionHeader: servicesVersionHeader(req),
    accept: header(req, "accept"),
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
