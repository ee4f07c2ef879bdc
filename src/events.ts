/** Who a login was for: the account's `uid`, else `nameHash` (a keyed HMAC); never the name, which may be a mistyped password. */
export interface LoginSubjectFields {
  /** The account's uid, when the name matched one. */
  readonly uid?: string;
  /** A keyed hash of the (normalised) name, when it matched no account. */
  readonly nameHash?: string;
}

/** What every {@link AuthEvent} carries besides its own fields. */
export interface AuthEventContext {
  /** When it happened, in epoch milliseconds (not `time`, which pino and bunyan write themselves). */
  readonly timestamp: number;
  /** `req.id`, else a well-formed `X-Request-Id`; absent on store events, whose calls are timed apart from requests. */
  readonly requestId?: string;
}

/**
 * Security events for audit logs (ASVS V16.3.1): a session only as `base64url(sha256(sessid))`,
 * never a raw id, token, password or login name; an error under `err`, where loggers look.
 * The list with meanings: docs/options.md.
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
    /** A login waited too long for a password check or its turn, and got a 503 (not a failure). */
    | { readonly type: "login.busy"; readonly ip: string; readonly retryAfter: number }
    /** A login posted from another site's page got a 403; `message` says why and how to trust an origin (`trustedOrigins`). */
    | { readonly type: "login.cross-site"; readonly origin: string | null; readonly fetchSite: string | null; readonly ip: string; readonly message: string }
    /** Once at start-up: trusted origins of another site whose logins will not stick; `message` says what to set. */
    | { readonly type: "config.cross-site-cookie"; readonly origins: readonly string[]; readonly message: string }
    /** Once: a Services call the binding was not set up to route got the not-found handler's 404; `message` says how to set it up. */
    | { readonly type: "config.routing"; readonly message: string }
    /** A login from another site's app origin whose cookie the browser will drop; answered as usual, `message` says why. */
    | { readonly type: "cookie.cross-site"; readonly origin: string; readonly ip: string; readonly message: string }
    | { readonly type: "logout"; readonly uid: string; readonly session: string; readonly ip: string }
    /** Every session of a user ended by the app ("log out everywhere", `endUserSessions`); `sessions`: how many ended. */
    | { readonly type: "logout.everywhere"; readonly uid: string; readonly sessions: number }
    /** A logout a shared store refused: refused here and retried, other instances may accept it meanwhile; the client got a 503. */
    | { readonly type: "logout.unrecorded"; readonly uid: string; readonly session: string; readonly ip: string }
    | { readonly type: "session.expired"; readonly uid: string; readonly session: string; readonly reason: "idle" | "absolute" }
    | {
        readonly type: "session.revoked";
        readonly uid: string;
        readonly session: string;
        readonly reason: "session-limit" | "user-blocked" | "password-changed";
      }
    /** A cookie named a row the session store keeps for another system but cannot serve: no session here, its cookie left alone; `reason` says why. */
    | { readonly type: "session.unserved"; readonly session: string; readonly reason: string }
    /** Several cookies of one name taken as no session: live sessions of different accounts, or too many values (docs/wire-format.md). */
    | { readonly type: "session.ambiguous"; readonly reason: "accounts" | "too-many-cookies"; readonly cookies: number; readonly uids: readonly string[] }
    | { readonly type: "csrf.rejected"; readonly uid: string; readonly session: string; readonly ip: string; readonly method: string }
    | { readonly type: "store.failure"; readonly operation: string; readonly err: unknown }
    /** A store at its capacity refused to keep more (the client got a 503 `ERR_STORE_FULL`): nothing was evicted to make room. */
    | { readonly type: "store.full"; readonly operation: string }
    /** A verified password's hash could not be upgraded (the hasher threw, or the store failed); the login went on. */
    | { readonly type: "rehash.failed"; readonly uid: string; readonly err: unknown }
    /** Once per router: a client address that is no IP address (no per-address limit); `message` says how to fix it. */
    | { readonly type: "address.unknown"; readonly address: string; readonly message: string }
    /** A bug or an unexpected throw (an app's route, a custom store): the client got a bodyless 500. */
    | { readonly type: "internal.error"; readonly err: unknown }
    /** An account call made an account; `by` is the admin who did, `null` for a visitor's registration. */
    | { readonly type: "account.created"; readonly uid: string; readonly by: string | null; readonly ip: string }
    /** An account call changed an account: which of `name`, `mail`, `password`, `status`, `roles`, `timezone`. */
    | { readonly type: "account.updated"; readonly uid: string; readonly by: string; readonly changed: readonly string[]; readonly ip: string }
    /** An account call deleted (or cancelled by deleting) an account. */
    | { readonly type: "account.deleted"; readonly uid: string; readonly by: string; readonly ip: string }
    /** A one-time login link was asked for (`uid` null: no such active account, or its requests are flooded) or refused for flood. */
    | { readonly type: "password.reset-requested"; readonly uid: string | null; readonly ip: string; readonly flooded: "ip" | "user" | null }
    /** A one-time login link opened a session. */
    | { readonly type: "password.reset-used"; readonly uid: string; readonly session: string; readonly ip: string }
    /** A mail could not be handed to the mailer (`key`: which mail); the call answered as Drupal does then. */
    | { readonly type: "mail.failed"; readonly key: string; readonly err: unknown }
    /** Once at start-up: account calls asked for that are not served, and why (a user store that does not write, no mailer). */
    | { readonly type: "config.accounts"; readonly calls: readonly string[]; readonly message: string }
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

/** The one way events leave: stamped, to the listener (its throws swallowed, so no audit bug changes a decision); faults to stderr without one. */
export function eventEmitter(listener: AuthEventListener | undefined): Emit {
  const deliver = listener ?? logFault;
  // Without a listener, drop non-faults before making a stamped copy for nobody.
  const wanted = listener === undefined ? (event: RaisedEvent) => FAULTS.has(event.type) : () => true;
  return (event, requestId) => {
    if (!wanted(event)) return;
    try {
      deliver({ ...event, timestamp: Date.now(), ...(requestId === undefined ? {} : { requestId }) } as AuthEvent);
    } catch {
      // An audit hook's bug must not change the decision.
    }
  };
}

// Faults, and warnings about a configuration that cannot work.
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
  "mail.failed",
  "config.accounts",
]);

/** Store failures written per operation in the last second, and how many were left out: an outage is one line a second, not one a request. */
const storeFailures = new Map<string, { at: number; left: number }>();

/** Writes a fault to stderr, with the error's stack, as Express's own handler would print it (not when `NODE_ENV` is `test`). */
function logFault(event: AuthEvent): void {
  if (!FAULTS.has(event.type)) return;
  let more = "";
  if (event.type === "store.failure") {
    const seen = storeFailures.get(event.operation);
    if (seen !== undefined && event.timestamp - seen.at < 1000) {
      seen.left += 1;
      return;
    }
    if (seen !== undefined && seen.left > 0) more = ` (${seen.left} more in the second before)`;
    if (storeFailures.size > 100) storeFailures.clear();
    storeFailures.set(event.operation, { at: event.timestamp, left: 0 });
  }
  const { type, timestamp, requestId, ...fields } = event;
  const { err, ...rest } = fields as { err?: unknown };
  const context = Object.entries({ ...rest, requestId })
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${String(value)}`);
  writeStderr(
    `services-session-auth ${new Date(timestamp).toISOString()} ${type}${context.length > 0 ? ` ${context.join(" ")}` : ""}${more}${err === undefined ? "" : `\n${stackOf(err)}`}`,
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
