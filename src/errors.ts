/** Every code a {@link SessionAuthError} can carry. */
export type SessionAuthErrorCode =
  | "ERR_INVALID_CREDENTIALS"
  | "ERR_MISSING_ARGUMENT"
  | "ERR_CSRF"
  | "ERR_ALREADY_LOGGED_IN"
  | "ERR_NOT_LOGGED_IN"
  | "ERR_ACCOUNT_BLOCKED"
  | "ERR_USER_THROTTLED"
  | "ERR_IP_THROTTLED"
  | "ERR_INVALID_JSON"
  | "ERR_UNSUPPORTED_CONTENT_TYPE"
  | "ERR_BODY_TOO_LARGE"
  | "ERR_UNAUTHENTICATED"
  | "ERR_FORBIDDEN"
  | "ERR_NO_CONTROLLER"
  | "ERR_NO_RESOURCE"
  | "ERR_PAGE_NOT_FOUND"
  | "ERR_MALFORMED_REQUEST"
  | "ERR_STORE_UNAVAILABLE"
  | "ERR_STORE_FULL"
  | "ERR_CROSS_SITE_LOGIN"
  | "ERR_LOGIN_BUSY"
  | "ERR_NOT_ACCEPTABLE";

/** The HTTP status each code is answered with; its reason phrase and body are `src/wire/status.ts`'s. */
const HTTP_STATUS: Readonly<Record<SessionAuthErrorCode, number>> = {
  ERR_INVALID_CREDENTIALS: 401,
  ERR_MISSING_ARGUMENT: 401,
  ERR_CSRF: 401,
  ERR_ALREADY_LOGGED_IN: 406,
  ERR_NOT_LOGGED_IN: 406,
  ERR_ACCOUNT_BLOCKED: 403,
  ERR_USER_THROTTLED: 406,
  ERR_IP_THROTTLED: 406,
  ERR_INVALID_JSON: 400,
  ERR_UNSUPPORTED_CONTENT_TYPE: 406,
  ERR_BODY_TOO_LARGE: 413,
  ERR_UNAUTHENTICATED: 401,
  ERR_FORBIDDEN: 403,
  ERR_NO_CONTROLLER: 404,
  ERR_NO_RESOURCE: 404,
  ERR_PAGE_NOT_FOUND: 404,
  ERR_MALFORMED_REQUEST: 400,
  ERR_STORE_UNAVAILABLE: 503,
  ERR_STORE_FULL: 503,
  ERR_CROSS_SITE_LOGIN: 403,
  ERR_LOGIN_BUSY: 503,
  ERR_NOT_ACCEPTABLE: 406,
};

/**
 * A request-time failure (misconfiguration is a `TypeError` at start-up instead); its reply is in `src/wire/status.ts`.
 * `detail` is what Drupal's message names, `cause` for server logs only, `retryAfter` in seconds.
 */
export class SessionAuthError extends Error {
  override readonly name = "SessionAuthError";
  readonly code: SessionAuthErrorCode;
  readonly detail: string | undefined;
  readonly retryAfter: number | undefined;
  /** The HTTP status the wire format answers it with, where Express's error handlers look for it. */
  readonly status: number;

  constructor(code: SessionAuthErrorCode, detail?: string, options?: { cause?: unknown; retryAfter?: number }) {
    super(detail === undefined ? code : `${code}: ${detail}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = detail;
    this.retryAfter = options?.retryAfter;
    this.status = HTTP_STATUS[code];
  }

  /** {@link SessionAuthError.status}, where Fastify's error handling looks for it. */
  get statusCode(): number {
    return this.status;
  }
}

/**
 * Whether a value is a {@link SessionAuthError}, across the ESM and CJS copies of the class.
 *
 * @example
 * ```ts
 * app.use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
 *   if (isSessionAuthError(err) && err.code === "ERR_STORE_UNAVAILABLE") return res.status(503).end();
 *   next(err);
 * });
 * ```
 */
export function isSessionAuthError(value: unknown): value is SessionAuthError {
  return value instanceof Error && value.name === "SessionAuthError" && typeof (value as SessionAuthError).code === "string";
}
