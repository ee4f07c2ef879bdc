import type { SessionAuthErrorCode } from "../../errors.js";
import type { DocumentedSettings } from "../../options/schema.js";
import { json, ref, stringHeader } from "../parts.js";
import type { PathBuilder } from "../path-builder.js";
import { servicesCall } from "./services-call.js";

/** The session cookie's attributes as they are set with these options, for the document's text. */
function cookieAttributes(auth: DocumentedSettings["cookie"]): string {
  const domain =
    auth.cookieDomain === undefined
      ? "`domain=.<host>` by Drupal's rule (none for IP addresses, `localhost` and single-label hosts)"
      : `\`domain\` from \`${auth.cookieDomain}\` by Drupal's rule`;
  const secure = auth.cookieSecure === "always" ? "`secure` always" : "`secure` on HTTPS";
  const sameSite = auth.sameSite === undefined ? "no `SameSite` (as Drupal 7)" : `\`SameSite=${auth.sameSite[0]!.toUpperCase()}${auth.sameSite.slice(1)}\``;
  return `\`path=/\`, ${domain}, ${secure}, \`HttpOnly\`, ${sameSite}`;
}

/** `user/login`: the name and password in, a new session and its cookie out. */
export const userLogin: PathBuilder = (context) => {
  const { login, endpoint, cookie } = context.settings;
  const codes: SessionAuthErrorCode[] = [
    "ERR_MISSING_ARGUMENT",
    "ERR_INVALID_CREDENTIALS",
    "ERR_CSRF",
    "ERR_ALREADY_LOGGED_IN",
    "ERR_STORE_FULL",
    "ERR_CROSS_SITE_LOGIN",
    "ERR_LOGIN_BUSY",
  ];
  if (login.blockedAccountResponse === "drupal") codes.push("ERR_ACCOUNT_BLOCKED");
  if (login.throttle !== false) codes.push("ERR_USER_THROTTLED", "ERR_IP_THROTTLED");
  const devices = login.deviceCookies === false ? undefined : login.deviceCookies;
  const deviceCookie =
    devices === undefined
      ? ""
      : ` Then the device cookie, \`${devices.name}=<signed token>; expires=…; Max-Age=${devices.maxAge}\` with the same attributes: a later login to the same account that carries it has a failure budget of its own, whatever others did from its address or to the account, and goes ahead of other clients' password checks.`;
  return {
    [`${context.base}/user/login.json`]: servicesCall(context, {
      operationId: "userLogin",
      summary: "Log in",
      description: `Checks the name and password and opens a session: a new session id every time, set as the session cookie. A login posted from another site's page (an \`Origin\` that is not the site's own or trusted, or \`Sec-Fetch-Site: cross-site\`) is refused with a 403; one that would wait too long for its password check gets a 503 with \`Retry-After\`. ${endpoint.loginApiVersion === "1.1" ? "API 1.1: `name`/`pass`." : "API 1.0: `username`/`password` (`name`/`pass` with the header `Services-User-Login-Version: 1.1`, as Services reads any `services_<resource>_<method>_version` header)."} A body with no Content-Type is read as a form.`,
      codes,
      ok: {
        description: "Logged in.",
        headers: {
          "Set-Cookie": stringHeader(
            `The session cookie, as Drupal 7's PHP writes it: \`<session_name>=<sessid>; expires=…; Max-Age=…\`, ${cookieAttributes(cookie)}. A copy of the name held elsewhere (host-only, or Drupal's domain) is deleted in the same reply.${deviceCookie}`,
          ),
        },
        content: json(ref("LoginReply")),
      },
      extra: { requestBody: { required: true, content: context.bodyTypes(ref("LoginBody")) } },
    }),
  };
};
