import { json, ref } from "../parts.js";
import type { PathBuilder } from "../path-builder.js";
import { servicesCall } from "./services-call.js";

/** `user/token`: the session's CSRF token as JSON. */
export const userToken: PathBuilder = (context) => ({
  [`${context.base}/user/token.json`]: servicesCall(context, {
    operationId: "userToken",
    summary: "CSRF token (JSON)",
    description:
      "The session's CSRF token: a random one for a caller without a session cookie, and for a cookie that names no live session, that cookie's token (with the cookie's deletion). Never CSRF-checked.",
    codes: [],
    ok: { description: "The token.", content: json(ref("TokenReply")) },
    extra: { security: [{}, { sessionCookie: [] }] },
  }),
});
