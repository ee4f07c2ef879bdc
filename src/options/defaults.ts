import { ACCOUNTS_DEFAULTS } from "../accounts/options.js";
import { COOKIE_DEFAULTS } from "../cookie/options.js";
import { CORS_DEFAULTS } from "../cors/options.js";
import { ENDPOINT_DEFAULTS } from "../endpoint/options.js";
import { LOGIN_DEFAULTS } from "../login/options.js";
import { ORIGIN_DEFAULTS } from "../origins/options.js";
import { GUARD_DEFAULTS, SESSION_DEFAULTS } from "../sessions/options.js";
import { CORE_DEFAULTS } from "./schema.js";

/** Every plain default, from the concept that owns it; the OpenAPI document reads them and a test holds `@default` to them. */
export const DEFAULTS = Object.freeze({
  ...CORE_DEFAULTS,
  ...COOKIE_DEFAULTS,
  ...SESSION_DEFAULTS,
  ...LOGIN_DEFAULTS,
  ...ORIGIN_DEFAULTS,
  ...CORS_DEFAULTS,
  ...ENDPOINT_DEFAULTS,
  ...GUARD_DEFAULTS,
  ...ACCOUNTS_DEFAULTS,
});
