import type { CorsRequest } from "../cors/cors.js";
import type { EndpointRequest } from "../endpoint/endpoint.js";
import { servicesVersionHeader } from "../endpoint/routing.js";
import { plainAddress } from "../http-input/address.js";
import type { HttpRequest, RequestBody } from "../http-input/request.js";
import { sentRequestId } from "../http-input/request-id.js";
import { pathBelow, queryParameter, splitTarget, type Target } from "../http-input/target.js";
import { csrfTokenOf } from "../sessions/csrf-token-of.js";
import type { CheckRequest } from "../sessions/session-check.js";

/** Where the view places a request: the endpoint's path, the body limit, and `?q=` routing. */
export interface ViewSettings {
  readonly endpointPath: string;
  readonly bodyLimit: number;
  readonly route: (target: string) => string | undefined;
}

/** Every view the engine takes of a request, from the one shape a binding hands in, each read only when asked. */
export class RequestView implements EndpointRequest, CheckRequest, CorsRequest {
  readonly #http: HttpRequest;
  readonly #settings: ViewSettings;
  #routed: Target | undefined;

  /** @param rewritten - The target `?q=` routes the request to, when the caller already worked it out (`null`: none). */
  constructor(http: HttpRequest, settings: ViewSettings, rewritten?: string | null) {
    this.#http = http;
    this.#settings = settings;
    if (rewritten !== undefined) this.#routed = splitTarget(rewritten ?? http.target);
  }

  /** The request as the binding described it. */
  get http(): HttpRequest {
    return this.#http;
  }

  get method(): string {
    return this.#http.method;
  }

  get host(): string {
    return this.#http.header("host") ?? "";
  }

  get secure(): boolean {
    return this.#http.secure;
  }

  get cookieHeader(): string | undefined {
    return this.#http.header("cookie");
  }

  get requestId(): string | undefined {
    return this.#http.requestId() ?? sentRequestId(this.#http.header("x-request-id"));
  }

  /** The client's address, an IPv4 one as Drupal shows it (no `::ffff:`); `""` when the framework has none. */
  get ip(): string {
    return plainAddress(this.#http.clientAddress() ?? "");
  }

  get userAgent(): string {
    return this.#http.header("user-agent") ?? "";
  }

  get contentType(): string | undefined {
    return this.#http.header("content-type");
  }

  get csrfHeader(): string | undefined {
    return this.#http.header("x-csrf-token");
  }

  /** `services_token` from the query string as sent (it may sit beside a `?q=`). */
  get queryToken(): string | undefined {
    return queryParameter(this.target.query, "services_token");
  }

  get versionHeader(): string | undefined {
    const http = this.#http;
    const found: Record<string, string | undefined> = {};
    for (const name of http.headerNames()) if (name.startsWith("services")) found[name] = http.header(name);
    return servicesVersionHeader(found);
  }

  get accept(): string | undefined {
    return this.#http.header("accept");
  }

  get origin(): string | undefined {
    return this.#http.header("origin");
  }

  get fetchSite(): string | undefined {
    return this.#http.header("sec-fetch-site");
  }

  /** The routed query string: `?q=`'s rest, else the request's own. */
  get query(): string {
    return this.routed.query;
  }

  get requestMethod(): string | undefined {
    return this.#http.header("access-control-request-method");
  }

  get requestHeaders(): string | undefined {
    return this.#http.header("access-control-request-headers");
  }

  get methodOverride(): string | undefined {
    return this.#http.header("x-http-method-override");
  }

  get methodParam(): string | undefined {
    return queryParameter(this.target.query, "_method");
  }

  /** The target as sent. */
  get target(): Target {
    return splitTarget(this.#http.target);
  }

  /** The target routing goes by: `?q=`'s on Drupal's query paths (see `queryRouter`), else the request's own. */
  get routed(): Target {
    if (this.#routed === undefined) {
      const rewritten = this.#settings.route(this.#http.target);
      this.#routed = rewritten === undefined ? this.target : splitTarget(rewritten);
    }
    return this.#routed;
  }

  /** The routed path below the endpoint (`/user/login.json`), or the whole routed path when it is not below it. */
  get path(): string {
    const { path } = this.routed;
    return pathBelow(path, this.#settings.endpointPath) ?? path;
  }

  /** Whether the routed path is the endpoint's or below it: Services answers there, Drupal elsewhere. */
  get mounted(): boolean {
    return pathBelow(this.routed.path, this.#settings.endpointPath) !== undefined;
  }

  body(): Promise<RequestBody> {
    return this.#http.body(this.#settings.bodyLimit);
  }

  /** The CSRF token the request supplies to a guarded route: the header, `services_token`, or a form the app parsed. */
  csrfToken(): string | undefined {
    return csrfTokenOf({ csrfHeader: this.csrfHeader, queryToken: this.queryToken, contentType: this.contentType, body: this.#http.parsedBody() });
  }
}
