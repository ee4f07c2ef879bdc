import { errorResponses } from "../error-responses.js";
import type { PathBuilder } from "../path-builder.js";
import type { OpenApiObject } from "../types.js";

const operation = (method: "get" | "post"): OpenApiObject => ({
  operationId: `sessionToken${method === "get" ? "Get" : "Post"}`,
  tags: ["Services session"],
  summary: "CSRF token (text)",
  description:
    "The session's CSRF token as bare text (43 characters, no newline): a fresh random token and no cookie for a caller without a session cookie, and for a cookie that names no live session, that cookie's token (with the cookie's deletion). Any method is answered; never checked.",
  security: [{}, { sessionCookie: [] }],
  responses: {
    "200": { description: "The token (`text/plain;charset=UTF-8`).", content: { "text/plain": { schema: { type: "string", pattern: "^[A-Za-z0-9_-]+$" } } } },
    ...errorResponses(["ERR_STORE_UNAVAILABLE"]),
  },
});

/** `services/session/token`: the session's CSRF token as text, at the site's root whatever the endpoint. */
export const sessionToken: PathBuilder = () => ({ "/services/session/token": { get: operation("get"), post: operation("post") } });
