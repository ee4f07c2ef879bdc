import { createRequire } from "node:module";

/** Whether `error` says that `name` itself could not be found (not one of its own imports). */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") && typeof message === "string" && message.includes(`'${name}'`);
}

/**
 * Loads an optional peer when its factory is called, so a missing one is a start-up `TypeError`
 * naming what to install; `createRequire` keeps the factory synchronous in both builds (`require(esm)` for ESM-only peers).
 * @throws TypeError naming the package and the `npm install` that fixes it, when it is not installed.
 */
export function loadOptionalPeer<T>(name: string, neededBy: string): T {
  try {
    return createRequire(import.meta.url)(name) as T;
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new TypeError(`${neededBy} needs the optional peer dependency "${name}", which is not installed: run \`npm install ${name}\` in the app`, {
      cause: error,
    });
  }
}
