import { z } from "zod";
import { parseOptions, type Refinement } from "../validate.js";
import type { SameSiteValue } from "./cookie-headers.js";

/** The options shaping the session cookie, part of {@link SessionAuthOptions}; each is explained in docs/options.md#cookie. */
export interface CookieOptions {
  /**
   * The session cookie's name, set outright.
   * @default derived as Drupal derives it: `SESS` (`SSESS` on HTTPS) + 32 hex of sha256 of `cookieDomain`, `baseUrl` or the `Host`
   */
  sessionName?: string;
  /**
   * settings.php `$cookie_domain`: names the cookie as Drupal would and sets its `Domain` by Drupal's rule.
   * @default none: `Domain=.<host>` from the request's `Host` (port dropped, `www.` kept), as
   * Drupal 7 sets it, except for `localhost`, single-label hosts and IP addresses (host-only)
   */
  cookieDomain?: string;
  /**
   * settings.php `$base_url` (e.g. `https://example.com`): names the cookie as Drupal would.
   * @default none: the request's `Host` names the cookie, as Drupal does
   */
  baseUrl?: string;
  /**
   * Whether the cookie is `Secure`: `"auto"` over HTTPS (set `trust proxy` behind a TLS proxy), or `"always"`.
   * @default "auto"
   */
  cookieSecure?: "auto" | "always";
  /**
   * The cookie's `SameSite`; apps on another site need `"none"`, which needs `cookieSecure: "always"`.
   * @default none: no `SameSite` attribute, as Drupal 7
   */
  sameSite?: "lax" | "strict" | "none";
  /**
   * Seconds a session may live from login, however active (server-side), and the cookie's `Max-Age`.
   * @default 2000000 (Drupal's session.cookie_lifetime)
   */
  absoluteTimeout?: number;
}

/** The defaults of {@link CookieOptions} that are plain values. */
export const COOKIE_DEFAULTS = Object.freeze({ cookieSecure: "auto", absoluteTimeout: 2_000_000 } as const);

/** The checks of {@link CookieOptions}, one per option. */
export const cookieShape = {
  sessionName: z
    .string()
    .regex(/^[!#$%&'*+\-.^\w`|~]+$/, "must be a cookie name")
    .optional(),
  // Nothing that could end or extend a Set-Cookie attribute.
  cookieDomain: z
    .string()
    .regex(/^[\w.-]+$/, "must be a domain such as .example.com (no ';', spaces or control characters)")
    .optional(),
  baseUrl: z.url().optional(),
  cookieSecure: z.enum(["auto", "always"]).optional(),
  sameSite: z.enum(["lax", "strict", "none"]).optional(),
  absoluteTimeout: z.number().int().positive().optional(),
};

/** Browsers drop a SameSite=None cookie that is not Secure: the pair is refused at start-up, not in a user's browser. */
export const secureSameSiteNone: Refinement<{ sameSite?: string | undefined; cookieSecure?: string | undefined }> = [
  (value) => value.sameSite !== "none" || value.cookieSecure === "always",
  { message: 'sameSite "none" needs cookieSecure: "always" (browsers refuse SameSite=None without Secure)', path: ["sameSite"] },
];

const cookieSchema = z.strictObject(cookieShape).refine(...secureSameSiteNone);

/** {@link CookieOptions} with every default filled in. */
export interface CookieSettings {
  readonly sessionName: string | undefined;
  readonly cookieDomain: string | undefined;
  readonly baseUrl: string | undefined;
  readonly cookieSecure: "auto" | "always";
  readonly sameSite: SameSiteValue | undefined;
  readonly absoluteTimeout: number;
}

const SAME_SITE: Readonly<Record<"lax" | "strict" | "none", SameSiteValue>> = { lax: "Lax", strict: "Strict", none: "None" };

/** Completes checked {@link CookieOptions} with their defaults. */
export function cookieSettings(input: z.output<typeof cookieSchema>): CookieSettings {
  return Object.freeze({
    sessionName: input.sessionName,
    cookieDomain: input.cookieDomain,
    baseUrl: input.baseUrl,
    cookieSecure: input.cookieSecure ?? COOKIE_DEFAULTS.cookieSecure,
    sameSite: input.sameSite === undefined ? undefined : SAME_SITE[input.sameSite],
    absoluteTimeout: input.absoluteTimeout ?? COOKIE_DEFAULTS.absoluteTimeout,
  });
}

/**
 * Checks and completes the cookie options found in an object that may hold others too (all of
 * {@link SessionAuthOptions}): the others are ignored.
 * @throws TypeError naming every invalid option.
 */
export function parseCookieOptions(input: Partial<CookieOptions>, factory: string): CookieSettings {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(cookieShape)) if (Object.hasOwn(input, key)) picked[key] = (input as Record<string, unknown>)[key];
  return cookieSettings(parseOptions(cookieSchema, picked, factory));
}
