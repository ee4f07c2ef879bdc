import { readFileSync } from "node:fs";
import type { SessionAuthOptions } from "services-session-auth";

/** The options {@link hybridOptionsFromEnv} reads. */
export type HybridOptions = Pick<SessionAuthOptions, "trustedOrigins" | "sameSite" | "cookieSecure" | "admitCrossSiteWithoutOrigin">;

/**
 * The options a hybrid or browser app on another origin needs, from the environment:
 * `TRUSTED_ORIGINS` (a comma list of origins: they may log in, and get CORS; `null` is refused
 * at start-up), `SESSION_SAMESITE` (`lax`, `strict` or `none`), `COOKIE_SECURE` (`auto` or
 * `always`), and `ADMIT_CROSS_SITE_WITHOUT_ORIGIN=1` for Cordova apps loaded from `file:` on
 * Android, whose WebViews send no `Origin`.
 * Unset, each keeps the package's default.
 */
export function hybridOptionsFromEnv(env: NodeJS.ProcessEnv): HybridOptions {
  const options: HybridOptions = {};
  const origins = (env.TRUSTED_ORIGINS ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
  if (origins.length > 0) options.trustedOrigins = origins;
  const sameSite = env.SESSION_SAMESITE?.trim().toLowerCase();
  if (sameSite !== undefined && sameSite !== "") {
    if (sameSite !== "lax" && sameSite !== "strict" && sameSite !== "none")
      throw new TypeError(`SESSION_SAMESITE must be lax, strict or none, not "${sameSite}"`);
    options.sameSite = sameSite;
  }
  const secure = env.COOKIE_SECURE?.trim().toLowerCase();
  if (secure !== undefined && secure !== "") {
    if (secure !== "auto" && secure !== "always") throw new TypeError(`COOKIE_SECURE must be auto or always, not "${secure}"`);
    options.cookieSecure = secure;
  }
  const admit = env.ADMIT_CROSS_SITE_WITHOUT_ORIGIN?.trim();
  if (admit !== undefined && admit !== "") {
    if (admit !== "1" && admit !== "0") throw new TypeError(`ADMIT_CROSS_SITE_WITHOUT_ORIGIN must be 1 or 0, not "${admit}"`);
    options.admitCrossSiteWithoutOrigin = admit === "1";
  }
  return options;
}

/** `HTTPS_CERT` and `HTTPS_KEY` (PEM file paths) read, to serve HTTPS; `undefined` when neither is set. */
export function httpsFromEnv(env: NodeJS.ProcessEnv): { cert: Buffer; key: Buffer } | undefined {
  const cert = env.HTTPS_CERT?.trim() || undefined;
  const key = env.HTTPS_KEY?.trim() || undefined;
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) throw new TypeError("HTTPS_CERT and HTTPS_KEY go together: the PEM files of the certificate and of its key");
  return { cert: readFileSync(cert), key: readFileSync(key) };
}
