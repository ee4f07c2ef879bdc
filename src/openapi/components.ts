import { drupalSessionName } from "../cookie/session-name.js";
import { loginBodySchema } from "../endpoint/login-arguments.js";
import type { DocumentedSettings } from "../options/schema.js";
import { ACCOUNT_SCHEMAS } from "./accounts/account-schemas.js";
import { jsonSchema } from "./parts.js";
import { connectReply, errorBody, loginReply, logoutReply, logoutReply11, tokenReply } from "./reply-schemas.js";
import type { OpenApiObject } from "./types.js";

/** The session cookie's name where the options fix it (a name, or the domain or base URL Drupal derives it from). */
function cookieNameOf({ cookie }: DocumentedSettings): string | undefined {
  if (cookie.sessionName !== undefined) return cookie.sessionName;
  if (cookie.cookieDomain === undefined && cookie.baseUrl === undefined) return undefined;
  return drupalSessionName({
    cookieDomain: cookie.cookieDomain,
    baseUrl: cookie.baseUrl,
    host: "",
    secure: cookie.cookieSecure === "always" || cookie.baseUrl?.startsWith("https:") === true,
  });
}

/** The document's `components`: the schemas its paths refer to, and the session cookie and CSRF token as security schemes. */
export function components(settings: DocumentedSettings): OpenApiObject {
  const { login } = settings;
  const cookieName = cookieNameOf(settings);
  const accounts = (settings.accounts?.calls.size ?? 0) > 0;
  return {
    schemas: {
      LoginBody: jsonSchema(loginBodySchema({ maxNameLength: login.maxNameLength, maxPasswordBytes: login.maxPasswordBytes })),
      LoginReply: jsonSchema(loginReply),
      ConnectReply: jsonSchema(connectReply),
      LogoutReply: jsonSchema(logoutReply),
      LogoutReply11: jsonSchema(logoutReply11),
      TokenReply: jsonSchema(tokenReply),
      ErrorBody: jsonSchema(errorBody),
      ...(accounts ? Object.fromEntries(Object.entries(ACCOUNT_SCHEMAS).map(([name, schema]) => [name, jsonSchema(schema)])) : {}),
    },
    securitySchemes: {
      sessionCookie: {
        type: "apiKey",
        in: "cookie",
        name: cookieName ?? "SESS",
        description: `The session cookie, \`<session_name>=<sessid>\` from the login reply.${cookieName === undefined ? " Its name is `SESS` (or `SSESS` on HTTPS) followed by 32 hex characters derived from the site's host, as Drupal 7 derives it: read `session_name` from the login or connect reply." : ""}`,
      },
      csrfToken: {
        type: "apiKey",
        in: "header",
        name: "X-CSRF-Token",
        description:
          "The session's CSRF token (from the login reply, `user/token` or `services/session/token`), required on unsafe methods while a session is live.",
      },
    },
  };
}
