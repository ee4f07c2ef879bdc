import { json, ref, stringHeader } from "../parts.js";
import type { PathBuilder } from "../path-builder.js";
import { servicesCall } from "./services-call.js";

/** `user/logout`: the session deleted on the server and its cookie expired. */
export const userLogout: PathBuilder = (context) => {
  const { endpoint } = context.settings;
  const v11 = endpoint.logoutApiVersion === "1.1";
  return {
    [`${context.base}/user/logout.json`]: servicesCall(context, {
      operationId: "userLogout",
      summary: "Log out",
      description: `Deletes the session on the server and expires the cookie. ${v11 ? "API 1.1: answers the anonymous user." : "API 1.0: answers `[true]` (the anonymous user with the header `Services-User-Logout-Version: 1.1`)."}`,
      codes: ["ERR_CSRF", "ERR_NOT_LOGGED_IN"],
      ok: {
        description: "Logged out.",
        headers: {
          "Set-Cookie": stringHeader(
            "The expired session cookie (`<session_name>=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0`), with the domain it was set with, and for a host-only copy.",
          ),
          ...(endpoint.clearSiteData ? { "Clear-Site-Data": stringHeader('`"cookies"`: every cookie of the origin is cleared.') } : {}),
        },
        content: json(ref(v11 ? "LogoutReply11" : "LogoutReply")),
      },
    }),
  };
};
