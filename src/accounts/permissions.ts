import type { UserRecord, UserStore } from "../types.js";

/** Every Drupal permission the account calls consult: what a role with all of them ("*" in `memoryUserStore`) holds here. */
export const ACCOUNT_PERMISSIONS: readonly string[] = Object.freeze([
  "administer users",
  "administer permissions",
  "access user profiles",
  "change own username",
  "cancel account",
  "select account cancellation method",
  "perform unlimited index queries",
  "access overlay",
]);

/** The anonymous user's roles, as `drupal_anonymous_user()` has them. */
const ANONYMOUS = { "1": "anonymous user" } as const;

/**
 * Drupal's `user_access()` for one caller, asked once per call: uid 1 has every permission, others
 * those of their roles as the user store grants them; a store that cannot tell grants an admin
 * (the `isAdmin` option) every one and others none.
 */
export class Permissions {
  readonly #store: UserStore;
  readonly #roles: Readonly<Record<string, string>>;
  readonly #all: boolean;
  #granted: Promise<ReadonlySet<string>> | undefined;

  constructor(store: UserStore, user: UserRecord | undefined, isAdmin: (user: UserRecord) => boolean) {
    this.#store = store;
    this.#roles = user?.roles ?? ANONYMOUS;
    this.#all = user?.uid === "1" || (store.permissions === undefined && user !== undefined && isAdmin(user));
  }

  /** Whether the caller has `permission` (the store is asked once, on the first question). */
  async has(permission: string): Promise<boolean> {
    if (this.#all) return true;
    if (this.#store.permissions === undefined) return false;
    this.#granted ??= this.#store.permissions(this.#roles).then((list) => new Set(list));
    return (await this.#granted).has(permission);
  }
}
