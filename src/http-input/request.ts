/** A request body: raw bytes, or a value a body parser in front of the package already produced. */
export type RequestBody = { readonly raw: Buffer } | { readonly parsed: unknown };

/** The one shape every binding hands the engine a request in; members are read only when needed, so it costs nothing up front. */
export interface HttpRequest {
  /** The HTTP method as sent (never an override). */
  readonly method: string;
  /** The target as sent (path and query, encoding kept), relative to the mount: `/?q=services/json/system/connect`. */
  readonly target: string;
  /** Whether the request came over HTTPS, as the framework decides it (its trusted proxies' word included). */
  readonly secure: boolean;
  /** One header by its lower-case name (`Host` from the URL or `:authority` where the request has none); `undefined` when absent. */
  header(name: string): string | undefined;
  /** The lower-case names of the request's headers (the Services version headers are a family no list names). */
  headerNames(): Iterable<string>;
  /** The client's address, as the framework reports it (its trusted proxies resolved); `undefined` when it has none. */
  clientAddress(): string | undefined;
  /** The request's id for the events, as the framework or the app names it; `undefined` for none. */
  requestId(): string | undefined;
  /** Reads the body, refusing more than `limit` bytes (`ERR_BODY_TOO_LARGE`); one a parser in front already read comes `parsed`. */
  body(limit: number): Promise<RequestBody>;
  /** A body the app's own parser produced before a guarded route (`services_token` in a form); `undefined` for none. */
  parsedBody(): unknown;
}
