import { SessionAuthError } from "../errors.js";
import { parseForm } from "./form.js";
import { parseMultipart } from "./multipart.js";

/** A request body type `user/login` and the other calls can parse (see {@link EndpointOptions.parsers}). */
export type RequestParser = "application/json" | "application/x-www-form-urlencoded" | "multipart/form-data";

/** Every body type there is a parser for. */
export const REQUEST_PARSERS: readonly RequestParser[] = Object.freeze(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]);

const FORM = "application/x-www-form-urlencoded";
const JSON_MIME = "application/json";
const MULTIPART = "multipart/form-data";
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A request's MIME type (`Content-Type` before `;`); none at all is form-urlencoded, as Services' `parseRequestBody` takes it. */
export function requestMime(contentType: string | undefined): string {
  const mime = (contentType ?? "").split(";", 1)[0]!.trim();
  return mime === "" ? FORM : mime;
}

/**
 * Parses a POST body as Services' parsers do, with only the `parsers` given enabled (JSON: empty is
 * `""`, `null` or non-UTF-8 is invalid; forms as PHP `parse_str`; multipart's fields, as a promise).
 * JSON and forms cost no await. Replies: docs/wire-format.md#calls.
 *
 * @throws SessionAuthError `ERR_INVALID_JSON` or `ERR_UNSUPPORTED_CONTENT_TYPE` (a multipart body's errors reject the promise).
 */
export function parseRequestBody(raw: Buffer, contentType: string | undefined, parsers: ReadonlySet<RequestParser>): unknown {
  const mime = requestMime(contentType);
  const type = mime.toLowerCase();
  if (!parsers.has(type as RequestParser)) throw new SessionAuthError("ERR_UNSUPPORTED_CONTENT_TYPE", mime);
  switch (type) {
    case JSON_MIME:
      return parseJson(raw);
    case FORM:
      // Form bodies are ASCII by definition (percent-encoded); stray bytes become U+FFFD, never an error.
      return parseForm(raw);
    default:
      return parseMultipart(raw, contentType ?? MULTIPART);
  }
}

/** Whether a Content-Type reads as a media type (`type/subtype`, each an RFC 9110 token), as Fastify's own check reads it. */
export function isMediaType(value: string): boolean {
  const mediaType = value.split(";", 1)[0]!;
  const slash = mediaType.indexOf("/");
  return slash !== -1 && TOKEN.test(mediaType.slice(0, slash).trimStart()) && TOKEN.test(mediaType.slice(slash + 1).trimEnd());
}
const TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;

/** Whether a body of this Content-Type is one PHP puts in `$_REQUEST`, where Services also looks for `services_token`. */
export function isFormBody(contentType: string | undefined): boolean {
  const type = requestMime(contentType).toLowerCase();
  return type === FORM || type === MULTIPART;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return "";
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(raw));
  } catch {
    throw new SessionAuthError("ERR_INVALID_JSON");
  }
  // PHP's json_decode gives NULL for the literal null too, and Services cannot tell the two apart.
  if (value === null) throw new SessionAuthError("ERR_INVALID_JSON");
  return value;
}

/** One argument of a parsed body by PHP `isset()`: a missing key or JSON `null` is absent, `""` present. */
export function bodyArgument(body: unknown, name: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  if (!Object.hasOwn(body, name)) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return value === null ? undefined : value;
}
