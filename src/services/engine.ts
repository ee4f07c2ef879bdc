import { z } from "zod";
import { eventEmitter } from "../core/events.js";
import { sessionGuard, type GuardOutcome, type GuardRequest } from "../core/guard.js";
import { Authenticator } from "../core/login.js";
import { resolveGuardOptions, resolveOptions, type ResolvedGuardOptions, type ResolvedOptions } from "../core/option-schema.js";
import type { RequireSessionOptions, SessionAuthOptions } from "../core/options.js";
import { Sessions } from "../core/sessions.js";
import { guardStore } from "../core/store-guard.js";
import { parseOptions } from "../core/validate.js";
import { isSessionAuthError } from "../errors.js";
import { memoryCounterStore } from "../stores/memory-counter-store.js";
import { ServicesEndpoint } from "./endpoint.js";
import { foreignErrorReply } from "./foreign-error.js";
import { notFoundReply, type NotFoundRequest } from "./not-found.js";
import { sessionCookieOf } from "./session-cookie.js";
import { errorReply, type WireResponse } from "./wire.js";

/**
 * Options of {@link SessionAuth.notFound}.
 *
 * @example
 * ```ts
 * app.use("/services/json", auth.notFound({ resources: ["players", "events"] }));
 * ```
 */
export interface NotFoundOptions {
  /**
   * The app's own resources under the endpoint (`players`, `events`): a miss below one of
   * them is `Could not find the controller.`, as below `user` and `system`.
   * @default `[]`: any other first segment is `Could not find resource <name>.`
   */
  resources?: readonly string[];
}

const notFoundSchema = z.strictObject({ resources: z.array(z.string().min(1)).readonly().optional() });

/** A guard and the options it was made with. */
export interface Guard {
  readonly options: ResolvedGuardOptions;
  /** Decides one request. */
  check(request: GuardRequest): Promise<GuardOutcome>;
}

/** Everything a framework binding needs, built once over one set of options. */
export interface ServicesEngine {
  readonly options: ResolvedOptions;
  /** The one owner of the session lifecycle. */
  readonly sessions: Sessions;
  /** The Services calls and the programmatic start and end of a session. */
  readonly endpoint: ServicesEndpoint;
  /** A guard for an app's own routes: required, or optional (never refuses for lack of a session); with its resolved options. */
  guard(options: RequireSessionOptions, optional: boolean): Guard;
  /** The answer to a path no route answered: Services' own below the endpoint (`mounted`), Drupal's page-not-found elsewhere. */
  notFound(options: NotFoundOptions): (request: NotFoundRequest) => WireResponse;
  /**
   * The reply to an error thrown anywhere in front of the app's routes: the package's own by
   * the status table, a framework's or body parser's as the wire format has it, and anything
   * else a body-less 500 with an `internal.error` event. Never a stack trace.
   */
  errorReply(error: unknown, requestId?: string): WireResponse;
}

/**
 * Builds the engine: validates the options once (a `TypeError` naming each bad one), guards
 * every store with the timeout once, and makes one session owner, one authenticator (one
 * throttle, one hashing queue) and one endpoint, shared by every piece a binding hands out.
 * Supplies what the core leaves to the layers above it: the memory counter store when none is
 * given, and Drupal 7's cookie naming rule.
 * @throws TypeError naming every invalid option.
 */
export function createServicesEngine(input: SessionAuthOptions, factory: string): ServicesEngine {
  const options = resolveOptions(input, { counterStore: () => memoryCounterStore(), cookieOf: sessionCookieOf }, factory);
  const emit = eventEmitter(options.onEvent);
  const timeoutMs = options.storeTimeout * 1000;
  const users = guardStore(options.userStore, "userStore", timeoutMs, emit);
  const sessions = new Sessions(options, { sessions: guardStore(options.sessionStore, "sessionStore", timeoutMs, emit), users }, emit);
  const counters = guardStore(options.counterStore, "counterStore", timeoutMs, emit);
  const endpoint = new ServicesEndpoint(options, sessions, new Authenticator(options, sessions, { users, counters }));

  return {
    options,
    sessions,
    endpoint,
    guard(guardOptions, optional) {
      const resolved = resolveGuardOptions(guardOptions, optional ? "optionalSession" : "requireSession", optional);
      return { options: resolved, check: sessionGuard(sessions, { ...resolved, optional }) };
    },
    notFound(notFoundOptions) {
      const resources = new Set(parseOptions(notFoundSchema, notFoundOptions, "notFound").resources);
      return (request) => notFoundReply(request, resources);
    },
    errorReply(error, requestId) {
      const reply = isSessionAuthError(error) ? errorReply(error) : foreignErrorReply(error);
      if (reply !== undefined) return reply;
      emit({ type: "internal.error", err: error }, requestId);
      return errorReply(error);
    },
  };
}
