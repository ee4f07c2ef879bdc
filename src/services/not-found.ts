import { SessionAuthError } from "../errors.js";
import { trimSlashes } from "./path.js";

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
  const trimmed = trimSlashes(path);
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
