import { json, ref } from "../parts.js";
import type { PathBuilder } from "../path-builder.js";
import { servicesCall } from "./services-call.js";

/** `system/connect`: the current session and its user, or the anonymous user. */
export const systemConnect: PathBuilder = (context) => ({
  [`${context.base}/system/connect.json`]: servicesCall(context, {
    operationId: "systemConnect",
    summary: "Who am I",
    description:
      "The current session and its user. An anonymous caller gets user 0 and an id that is never stored: a random one and no cookie, or, for a cookie that names no live session, that cookie's value and its deletion.",
    codes: ["ERR_CSRF"],
    ok: { description: "The session and its user.", content: json(ref("ConnectReply")) },
  }),
});
