import { SessionAuthError } from "../errors.js";
import { trimSlashes } from "../http-input/path.js";
import { headReply, optionsReply, routingMethod } from "./routing.js";
import { errorReply, type WireResponse } from "../wire/reply.js";

/** The resources this package itself serves: a miss below them is a missing controller, not a missing resource. */
const OWN_RESOURCES = ["user", "system"];

// Longer names are cut: the name goes into the status line, and nobody needs more of it there.
const MAX_NAME = 64;

/** A request no route answered. */
export interface NotFoundRequest {
  /** The path below the mount path. */
  readonly path: string;
  /** Whether the handler sits below an endpoint path; at the site root, Drupal's page-not-found answers. */
  readonly mounted: boolean;
  /** The real method, the `X-HTTP-Method-Override` header and `?_method=`, which Services routes by. */
  readonly method: string;
  readonly methodOverride: string | undefined;
  readonly methodParam: string | undefined;
}

/** Services' answer to a path no route answered (`RESTServer::getController`), or Drupal's `404 Not Found` outside the endpoint. */
export function notFoundReply(request: NotFoundRequest, knownResources: ReadonlySet<string>): WireResponse {
  if (!request.mounted) return errorReply(new SessionAuthError("ERR_PAGE_NOT_FOUND"));
  const name = resourceName(request.path);
  if (!OWN_RESOURCES.includes(name) && !knownResources.has(name)) return errorReply(new SessionAuthError("ERR_NO_RESOURCE", name.slice(0, MAX_NAME)));
  switch (routingMethod(request.method, request.methodOverride, request.methodParam)) {
    case "HEAD":
      return headReply();
    case "OPTIONS":
      return optionsReply();
    default:
      return errorReply(new SessionAuthError("ERR_NO_CONTROLLER"));
  }
}

/** The resource a path below the endpoint names: its first segment, without a format suffix when it is the only one. */
function resourceName(path: string): string {
  const trimmed = trimSlashes(path);
  const first = trimmed.split("/", 1)[0] ?? "";
  return safeDecode(trimmed.includes("/") ? first : first.replace(/\.[^./]+$/, ""));
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
