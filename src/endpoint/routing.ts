import { checkPlain } from "../wire/html.js";
import { trimSlashes } from "../http-input/path.js";
import { reasonPhrase } from "../wire/status.js";
import { htmlHeaders, type WireResponse } from "../wire/reply.js";

/** The method Services routes by (a POST's `X-HTTP-Method-Override`, then `?_method=`); CSRF still uses the real one. */
export function routingMethod(method: string, overrideHeader: string | undefined, queryMethod: string | undefined): string {
  let routed = method;
  if (routed === "POST" && overrideHeader !== undefined) routed = overrideHeader;
  // PHP's truthiness: "" and "0" do not override.
  if (routed === "POST" && queryMethod !== undefined && queryMethod !== "" && queryMethod !== "0") routed = queryMethod;
  return routed;
}

/** A HEAD on a resource: Services throws `services_error('OK', 200)` before any controller runs, so `200 : OK` and no body. */
export function headReply(): WireResponse {
  return { status: 200, reason: reasonPhrase(200, "OK"), headers: htmlHeaders(), body: null };
}

/** An OPTIONS on a resource: Services calls PHP's `exit`, so a plain `200 OK` with no body and no CORS headers. */
export function optionsReply(): WireResponse {
  return { status: 200, headers: htmlHeaders(), body: null };
}

/** The endpoint root (`rest_server_server()`): `Services Endpoint "<name>" has been setup successfully.`, any method; clients poll it. */
export function endpointRootReply(endpointName: string): WireResponse {
  return { status: 200, headers: htmlHeaders(), body: `Services Endpoint "${checkPlain(endpointName)}" has been setup successfully.` };
}

/** A Services action this package answers. */
export type Action = "login" | "logout" | "userToken" | "connect";

// A Map: a path named `constructor` or `__proto__` must find nothing.
const ACTIONS: ReadonlyMap<string, Action> = new Map([
  ["user/login", "login"],
  ["user/logout", "logout"],
  ["user/token", "userToken"],
  ["system/connect", "connect"],
]);

// Services splits the format suffix off with this pattern (ServicesContentTypeNegotiator).
const SUFFIX = /^(.+)\.([^./^]+)$/;

/** A path below the endpoint as an action and its format suffix, as Services splits it; `undefined` for none of ours. */
export function matchAction(path: string): { action: Action; format: string | undefined } | undefined {
  const trimmed = trimSlashes(path);
  const suffix = SUFFIX.exec(trimmed);
  const [base, format] = suffix === null ? [trimmed, undefined] : [suffix[1]!, suffix[2]];
  const action = ACTIONS.get(base);
  return action === undefined ? undefined : { action, format };
}

const VERSION_SEPARATORS: ReadonlySet<string> = new Set(["_", "-"]);

/**
 * A `services_<resource>_<method>_version` header's value, whatever resource and method it names
 * (`_services_version_header_options`); PHP folds `-` into `_`, so `Services-User-Login-Version` counts.
 *
 * @param headers - The request's headers, names lower-cased (as Node gives them).
 */
export function servicesVersionHeader(headers: Readonly<Record<string, string | readonly string[] | undefined>>): string | undefined {
  let version: string | undefined;
  // for…in, not Object.entries: no array per header on every call.
  for (const name in headers) {
    if (
      name.length > 17 &&
      name.startsWith("services") &&
      name.endsWith("version") &&
      VERSION_SEPARATORS.has(name[8]!) &&
      VERSION_SEPARATORS.has(name[name.length - 8]!)
    ) {
      const value = headers[name];
      version = typeof value === "string" ? value : value?.[0];
    }
  }
  return version;
}
