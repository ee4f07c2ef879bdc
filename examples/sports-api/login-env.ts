import type { SessionAuthOptions } from "services-session-auth";

/** The options {@link loginOptionsFromEnv} reads. */
export type LoginEnvOptions = Pick<SessionAuthOptions, "deviceCookies">;

/**
 * Login protections from the environment: `DEVICE_COOKIES=true` (or `1`) turns device cookies
 * on (docs/security.md): a client that logged in before keeps a failure budget of its own when
 * others lock its address or account, and goes ahead in the hashing queue. `false` (or `0`), or
 * unset, keeps the package's default: off, as the login reply then sets Drupal's cookies only.
 */
export function loginOptionsFromEnv(env: NodeJS.ProcessEnv): LoginEnvOptions {
  const value = env.DEVICE_COOKIES?.trim().toLowerCase();
  if (value === undefined || value === "") return {};
  if (value === "true" || value === "1") return { deviceCookies: true };
  if (value === "false" || value === "0") return { deviceCookies: false };
  throw new TypeError(`DEVICE_COOKIES must be true or false (1 or 0), not "${value}"`);
}
