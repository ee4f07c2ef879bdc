/**
 * `services-session-auth/sealed-cookie`: a stateless session store that seals the session
 * record into the session id with iron-session. `iron-session` is an optional peer
 * dependency: install it in the app to use this subpath.
 *
 * @example
 * ```ts
 * import { memoryCounterStore } from "services-session-auth";
 * import { sealedCookieStore } from "services-session-auth/sealed-cookie";
 *
 * // One process: a store of its own that refuses (503) rather than forgets when full.
 * const revocations = memoryCounterStore({ whenFull: "reject" });
 * const sessionStore = sealedCookieStore({ password: process.env.SESSION_SECRET!, revocations });
 * ```
 *
 * @module
 */
export { sealedCookieStore } from "../stores/sealed-cookie/sealed-cookie-store.js";
export type { SealedCookieStoreOptions } from "../stores/sealed-cookie/sealed-cookie-store.js";
