import { bodyArgument, isFormBody } from "../http-input/body.js";

/** Where a request may carry its CSRF token. */
export interface CsrfTokenSources {
  readonly csrfHeader: string | undefined;
  readonly queryToken: string | undefined;
  /** The `Content-Type` header: only a form or multipart body is looked in. */
  readonly contentType: string | undefined;
  /** The parsed body, if one was read (by the endpoint, or by the app's own body parser). */
  readonly body: unknown;
}

/** The CSRF token a request supplies in Services' order (`X-CSRF-Token`, then `services_token`, never from JSON). */
export function csrfTokenOf(request: CsrfTokenSources): string | undefined {
  if (request.csrfHeader !== undefined) return request.csrfHeader;
  if (request.queryToken !== undefined) return request.queryToken;
  // By the request's type, whoever parsed the body: an app's express.urlencoded() in front changes nothing.
  if (!isFormBody(request.contentType)) return undefined;
  const value = bodyArgument(request.body, "services_token");
  return typeof value === "string" ? value : undefined;
}
