import { SessionAuthError } from "../errors.js";

/** The resources this package itself serves: a miss below them is a missing controller, not a missing resource. */
const OWN_RESOURCES = ["user", "system"];

// Longer names are cut: the name goes into the status line, and nobody needs more of it there.
const MAX_NAME = 64;

/**
 * The error Services gives for a path below the endpoint that no route answered
 * (`RESTServer.inc` getController): `Could not find the controller.` under a resource it
 * knows, `Could not find resource <name>.` otherwise. The format suffix is not part of the name.
 */
export function notFoundError(path: string, knownResources: ReadonlySet<string>): SessionAuthError {
  const trimmed = path.replace(/^\/+|\/+$/g, "");
  const first = trimmed.split("/", 1)[0] ?? "";
  const name = safeDecode(trimmed.includes("/") ? first : first.replace(/\.[^./]+$/, ""));
  if (OWN_RESOURCES.includes(name) || knownResources.has(name)) return new SessionAuthError("ERR_NO_CONTROLLER");
  return new SessionAuthError("ERR_NO_RESOURCE", name.slice(0, MAX_NAME));
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The parts of an HTTP error from Express, its router or body-parser (`http-errors`) that matter here. */
interface HttpErrorLike {
  readonly status?: unknown;
  readonly statusCode?: unknown;
  readonly type?: unknown;
}

/**
 * Turns an error thrown by the framework or a body parser in front of the app (a path
 * that cannot be percent-decoded, a JSON body that does not parse, an upload over a
 * limit) into the {@link SessionAuthError} that answers it on the wire. Other errors give
 * `undefined`: see {@link clientErrorStatus} for the rest of the client errors.
 */
export function clientError(error: unknown): SessionAuthError | undefined {
  if (error instanceof URIError) return new SessionAuthError("ERR_MALFORMED_REQUEST");
  if (typeof error !== "object" || error === null) return undefined;
  const { type } = error as HttpErrorLike;
  if (type === "entity.parse.failed") return new SessionAuthError("ERR_INVALID_JSON");
  if (type === "entity.too.large" || clientErrorStatus(error) === 413) return new SessionAuthError("ERR_BODY_TOO_LARGE");
  return undefined;
}

/**
 * The status of an HTTP client error (4xx) raised by other middleware (`http-errors` style:
 * `status` or `statusCode`), which keeps its status on the wire; `undefined` for anything else.
 */
export function clientErrorStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, statusCode } = error as HttpErrorLike;
  const code = typeof status === "number" ? status : typeof statusCode === "number" ? statusCode : undefined;
  return code !== undefined && Number.isInteger(code) && code >= 400 && code < 500 ? code : undefined;
}
