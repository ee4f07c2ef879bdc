import type { AccountDeps } from "../accounts/account-call.js";
import { memoryFloodStore } from "../accounts/flood.js";
import { PassResetTokens } from "../accounts/pass-reset-token.js";
import { UserResource } from "../accounts/user-resource.js";
import { WRITING_CALLS, type UserCall } from "../accounts/user-routes.js";
import type { Emit } from "../events.js";
import type { Authenticator } from "../login/authenticator.js";
import type { ResolvedOptions } from "../options/schema.js";
import type { Sessions } from "../sessions/sessions.js";
import { withTimeout } from "./store-watchdog.js";
import type { CounterStore, UserStore } from "../types.js";

/** The store methods each call needs beyond a reading user store's. */
function missingFor(call: UserCall, store: UserStore): string[] {
  const needs = WRITING_CALLS.has(call)
    ? (["createUser", "updateUser", "deleteUser", "findByMail"] as const)
    : call === "index"
      ? (["listUsers"] as const)
      : call === "request_new_password"
        ? (["findByMail"] as const)
        : [];
  return needs.filter((method) => typeof store[method] !== "function");
}

/**
 * The account calls of these options over the engine's stores, or `undefined` when none is served.
 * A call the user store cannot serve is left off, as on a Drupal site that does not enable it, and
 * said once (`config.accounts`).
 */
export function accountCalls(
  options: ResolvedOptions,
  stores: { readonly users: UserStore; readonly counters: CounterStore; readonly sessions: Sessions; readonly auth: Authenticator; readonly timeoutMs: number },
  emit: Emit,
): UserResource | undefined {
  const { accounts } = options;
  if (accounts.calls.size === 0) return undefined;
  const served = new Set<UserCall>();
  const refused = new Map<UserCall, string[]>();
  for (const call of accounts.calls) {
    const missing = missingFor(call, options.userStore);
    if (missing.length === 0) served.add(call);
    else refused.set(call, missing);
  }
  if (refused.size > 0) {
    const calls = [...refused.keys()];
    const methods = [...new Set([...refused.values()].flat())];
    emit({
      type: "config.accounts",
      calls,
      message: `accounts: ${calls.join(", ")} not served: the user store has no ${methods.join(", ")} (memoryUserStore and drupal7UserStore have them)`,
    });
  }
  if (served.size === 0) return undefined;
  const flood = accounts.flood === undefined ? memoryFloodStore() : withTimeout(accounts.flood, "floodStore", stores.timeoutMs, emit);
  const deps: AccountDeps = {
    users: stores.users,
    sessions: stores.sessions,
    auth: stores.auth,
    hasher: options.login.hasher,
    flood,
    mailer: accounts.mailer,
    isAdmin: options.endpoint.isAdmin,
    endpointPath: options.endpoint.endpointPath,
    siteUrl: accounts.siteUrl ?? options.cookie.baseUrl,
    hashSalt: accounts.hashSalt,
    passResetTokens: new PassResetTokens(accounts.passResetKey, stores.counters, options.cookie.absoluteTimeout),
    oneTimeLoginUrl: accounts.oneTimeLoginUrl,
    unknownAccount: accounts.unknownAccount,
    emit,
  };
  return new UserResource(deps, served, accounts.settings);
}
