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
 * const sessionStore = sealedCookieStore({ password: process.env.SESSION_SECRET!, revocations: memoryCounterStore() });
 * ```
 *
 * @module
 */
export { sealedCookieStore } from "../stores/sealed-cookie/sealed-cookie-store.js";
export type { SealedCookieStoreOptions } from "../stores/sealed-cookie/sealed-cookie-store.js";
