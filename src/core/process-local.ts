import { randomBytes } from "node:crypto";

/**
 * Set on a store whose data lives in this process only (gone on restart, unseen by other
 * instances), with a random name for this instance of it as its value. A registered
 * symbol, so it is the same in the ESM and CJS builds.
 */
const PROCESS_LOCAL = Symbol.for("services-session-auth.store.processLocal");

/** Marks a store as held in this process's memory, with a fresh random generation. */
export function markProcessLocal(store: object): void {
  // Not enumerable: spreading or logging the store shows only its methods.
  Object.defineProperty(store, PROCESS_LOCAL, { value: randomBytes(9).toString("base64url") });
}

/**
 * The generation of a store held in this process's memory: a random name that a new
 * instance of it (after a restart, say) does not share. `undefined` for any other store,
 * which is taken to be shared and durable.
 */
export function processLocalGeneration(store: object): string | undefined {
  const value = (store as { [PROCESS_LOCAL]?: unknown })[PROCESS_LOCAL];
  return typeof value === "string" ? value : undefined;
}
