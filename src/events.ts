/**
 * Who a login attempt was for, as audit events name it: the account's `uid` when the name
 * matched one, else `nameHash`, a keyed hash of the name (128 bits of HMAC-SHA256 under a key
 * derived from the `secret`, so equal across instances). The name itself is never in an
 * event: people type passwords into name fields. Neither is present when the name was not a
 * string at all. `login.throttled` is decided before the name is looked up: it carries
 * `nameHash` when the name's count refused it, and neither when the address's did.
 *
 * @example
 * ```ts
 * const who: LoginSubjectFields = event.type === "login.failure" ? event : {};
 * logger.warn({ uid: who.uid, nameHash: who.nameHash }, "failed login");
 * ```
 */
export interface LoginSubjectFields {
  /** The account's uid, when the name matched one. */
  readonly uid?: string;
  /** A keyed hash of the (normalised) name, when it matched no account. */
  readonly nameHash?: string;
}

/**
 * What every {@link AuthEvent} carries besides its own fields.
 *
 * @example
 * ```ts
 * const stamp = (event: AuthEventContext) => `${new Date(event.timestamp).toISOString()} ${event.requestId ?? "-"}`;
 * ```
 */
export interface AuthEventContext {
  /**
   * When it happened, in milliseconds since the epoch. Not `time`, which pino and bunyan
   * write themselves: an event logged as it is keeps both.
   */
  readonly timestamp: number;
  /**
   * The request it belongs to: `req.id` (set by pino-http and most request-id middleware),
   * else the `X-Request-Id` header when it is 1 to 128 visible ASCII characters (a client
   * may send any: a proxy that sets its own makes it trustworthy). Absent when the request
   * had none, and on `store.failure` and `store.full`: a store call is timed apart from the
   * requests that wait for it.
   */
  readonly requestId?: string;
}

/**
 * Security events, for audit logs (OWASP ASVS V16.3.1). A session appears only as
 * `base64url(sha256(sessid))` (for the memory and Redis stores, its store handle), never as
 * the raw id or the CSRF token; a password or a login name never appears. Addresses are shown
 * as Drupal shows them (`127.0.0.1`, not `::ffff:127.0.0.1`). An error is under `err`, where
 * pino and other loggers look for one to serialise.
 *
 * @example
 * ```ts
 * onEvent: (event: AuthEvent) => {
 *   if (event.type === "login.failure") metrics.increment(`login.failure.${event.reason}`);
 * }
 * ```
 */
export type AuthEvent = AuthEventContext &
  (
    | { readonly type: "login.success"; readonly uid: string; readonly session: string; readonly ip: string }
    | (LoginSubjectFields & {
        readonly type: "login.failure";
        /** Kept server-side: the client always sees the same 401. */
        readonly reason: "unknown-user" | "wrong-password" | "blocked" | "invalid-input";
        readonly ip: string;
      })
    | (LoginSubjectFields & { readonly type: "login.throttled"; readonly scope: "ip" | "user"; readonly ip: string })
    /**
     * A login waited too long for a password check, or for its turn behind other attempts of its
     * address or account still being checked, and was answered 503 (not counted as a failure).
     */
    | { readonly type: "login.busy"; readonly ip: string; readonly retryAfter: number }
    /**
     * A login posted from another site's page was refused (403). `message` says why, and how
     * to allow an origin that is really yours (`trustedOrigins`).
     */
    | { readonly type: "login.cross-site"; readonly origin: string | null; readonly fetchSite: string | null; readonly ip: string; readonly message: string }
    /**
     * At start-up: app origins of `trustedOrigins` that are other sites than the API's own
     * (`baseUrl`'s; `file:` apps, with `admitCrossSiteWithoutOrigin`), while the session cookie is not `SameSite=None` and
     * `Secure`, so their logins would not stick. `message` names the options to set. Raised
     * once; written to stderr when there is no `onEvent`.
     */
    | { readonly type: "config.cross-site-cookie"; readonly origins: readonly string[]; readonly message: string }
    /**
     * A Services call the binding was not set up to route (a `?q=` call on Fastify without
     * `drupalRewriteUrl`, a call on Hono where `services()` is not mounted): it got the not-found
     * handler's 404, never an answer past the app's own hooks; `message` says how to set it up. Once.
     */
    | { readonly type: "config.routing"; readonly message: string }
    /**
     * A login from an app origin of another site whose session cookie the browser will drop:
     * the cookie is not `SameSite=None` and `Secure`, or the request came over plain http.
     * The login is answered as usual; `message` says why the session will not stick.
     */
    | { readonly type: "cookie.cross-site"; readonly origin: string; readonly ip: string; readonly message: string }
    | { readonly type: "logout"; readonly uid: string; readonly session: string; readonly ip: string }
    /**
     * A logout the session store refused to record (full, or down) on a store other instances
     * share: this process refuses the session from now on and offers the logout to the store
     * until it takes it, but other instances may accept the session until then. The client got
     * a 503 with its cookie deleted.
     */
    | { readonly type: "logout.unrecorded"; readonly uid: string; readonly session: string; readonly ip: string }
    | { readonly type: "session.expired"; readonly uid: string; readonly session: string; readonly reason: "idle" | "absolute" }
    | {
        readonly type: "session.revoked";
        readonly uid: string;
        readonly session: string;
        readonly reason: "session-limit" | "user-blocked";
      }
    /**
     * A request carried several session cookies of one name and was taken as carrying no
     * session, with no cookie set or deleted: live sessions of different accounts (`reason:
     * "accounts"`, `uids` naming them: one was likely planted from a sibling subdomain or a
     * plain-HTTP page of the domain, for a narrower path), or more distinct values than a
     * client of this server ever holds (`"too-many-cookies"`, none looked up, `uids` empty).
     * `cookies` is how many distinct values were sent.
     */
    | { readonly type: "session.ambiguous"; readonly reason: "accounts" | "too-many-cookies"; readonly cookies: number; readonly uids: readonly string[] }
    | { readonly type: "csrf.rejected"; readonly uid: string; readonly session: string; readonly ip: string; readonly method: string }
    | { readonly type: "store.failure"; readonly operation: string; readonly err: unknown }
    /** A store at its capacity refused to keep more (the client got a 503 `ERR_STORE_FULL`): nothing was evicted to make room. */
    | { readonly type: "store.full"; readonly operation: string }
    /** A verified password's hash could not be upgraded (the hasher threw, or the store failed); the login went on. */
    | { readonly type: "rehash.failed"; readonly uid: string; readonly err: unknown }
    /**
     * The first call to the endpoint whose client address is not an IP address (an app on a
     * Unix socket behind a proxy, with `trust proxy` not a hop count): reported once per
     * router, since every such request after it is the same misconfiguration. Logins from such
     * requests have no per-address limit (each account's own still holds) and are not told
     * apart in the hashing queue. `message` says how to fix it. Written to stderr when the app
     * has no `onEvent`.
     */
    | { readonly type: "address.unknown"; readonly address: string; readonly message: string }
    /** A bug or an unexpected throw (an app's route, a custom store): the client got a bodyless 500. */
    | { readonly type: "internal.error"; readonly err: unknown }
  );

/**
 * Receives {@link AuthEvent}s. It runs synchronously on the request path: keep it cheap, and never throw (a throw is swallowed).
 *
 * @example
 * ```ts
 * const onEvent: AuthEventListener = (event) => logger.info(event, event.type);
 * createSessionAuthRouter({ ...options, onEvent });
 * ```
 */
export type AuthEventListener = (event: AuthEvent) => void;

/** An event as the code that raises it writes it: the context is added on the way out. */
export type RaisedEvent = AuthEvent extends infer E ? (E extends AuthEvent ? Omit<E, keyof AuthEventContext> : never) : never;

/** Raises an event, stamped with the time and, when a request caused it, the request's id. */
export type Emit = (event: RaisedEvent, requestId?: string) => void;

/**
 * The one way events leave the package: stamped, and passed to the app's listener, whose
 * throws are swallowed (an audit hook's bug must never change an auth decision). Without a
 * listener, the events that report a fault (an error, a full store, an unrecorded logout, a
 * client address that is no IP address) go to stderr, so an outage or a bug never passes without a trace.
 */
export function eventEmitter(listener: AuthEventListener | undefined): Emit {
  const deliver = listener ?? logFault;
  // Without a listener only the faults go anywhere: the others (a success, a revoked session on
  // every login past the cap) are dropped before a stamped copy is made for nobody.
  const wanted = listener === undefined ? (event: RaisedEvent) => FAULTS.has(event.type) : () => true;
  return (event, requestId) => {
    if (!wanted(event)) return;
    try {
      deliver({ ...event, timestamp: Date.now(), ...(requestId === undefined ? {} : { requestId }) } as AuthEvent);
    } catch {
      // Swallowed: see above.
    }
  };
}

// With the faults, the warnings about a configuration that cannot work (cookies a browser will drop, clients without an address).
const FAULTS: ReadonlySet<AuthEvent["type"]> = new Set([
  "internal.error",
  "store.failure",
  "store.full",
  "rehash.failed",
  "logout.unrecorded",
  "config.cross-site-cookie",
  "config.routing",
  "cookie.cross-site",
  "address.unknown",
]);

/** Writes a fault to stderr, with the error's stack, as Express's own handler would print it (not when `NODE_ENV` is `test`). */
function logFault(event: AuthEvent): void {
  if (!FAULTS.has(event.type)) return;
  const { type, timestamp, requestId, ...fields } = event;
  const { err, ...rest } = fields as { err?: unknown };
  const context = Object.entries({ ...rest, requestId })
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${String(value)}`);
  writeStderr(
    `services-session-auth ${new Date(timestamp).toISOString()} ${type}${context.length > 0 ? ` ${context.join(" ")}` : ""}${err === undefined ? "" : `\n${stackOf(err)}`}`,
  );
}

/** The stack of an error, else its text: what Express's final handler prints. */
export function stackOf(err: unknown): string {
  return err instanceof Error ? (err.stack ?? String(err)) : String(err);
}

/** A line on stderr, except under test, as Express's final handler does. */
export function writeStderr(text: string): void {
  if ((process.env.NODE_ENV ?? "development") === "test") return;
  process.stderr.write(`${text}\n`);
}
