import { checkPlain } from "./html.js";
import { reasonPhrase } from "./status.js";
import { htmlHeaders, type WireResponse } from "./wire.js";

/**
 * The method Services routes a request by (`ServicesContext` request method): a POST may
 * be turned into another method by an `X-HTTP-Method-Override` header, then by a non-empty
 * `?_method=`; no other method can be overridden. The CSRF rule still uses the real method.
 */
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

/**
 * The endpoint root (`rest_server_server()` with an empty canonical path): the plain text
 * `Services Endpoint "<name>" has been setup successfully.`, for any method. Clients in the
 * wild poll it as a health check.
 */
export function endpointRootReply(endpointName: string): WireResponse {
  return { status: 200, headers: htmlHeaders(), body: `Services Endpoint "${checkPlain(endpointName)}" has been setup successfully.` };
}
