import { z } from "zod";

/**
 * The Services replies' shapes for the OpenAPI document only; a test checks real replies against them.
 *
 * @module
 */

/** The user object of a login reply; other `users` columns follow. */
const drupalUser = z.looseObject({
  uid: z.string().meta({ description: "A decimal string, as PDO fetched `users.uid`." }),
  name: z.string(),
  mail: z.string(),
  login: z.number().int().meta({ description: "The login time just recorded, in Unix seconds (a number)." }),
  roles: z.record(z.string(), z.string()).meta({ description: "Role id → role name." }),
});
/** `user/login`'s 200 body. */
export const loginReply = z.object({
  sessid: z.string().meta({ description: "The session id: the value of the session cookie." }),
  session_name: z.string().meta({ description: "The session cookie's name (`SESS…`, `SSESS…` on HTTPS)." }),
  token: z.string().meta({ description: "The CSRF token to send as `X-CSRF-Token` on unsafe methods." }),
  user: drupalUser,
});
/** `system/connect`'s 200 body, logged in or anonymous. */
export const connectReply = z.object({
  sessid: z.string().meta({
    description:
      "The session id. For an anonymous caller an id that is never stored: a random one (no cookie is set), or the value of a cookie that names no live session (deleted in the same reply).",
  }),
  session_name: z.string(),
  user: z.looseObject({
    uid: z.union([z.string(), z.literal(0)]).meta({ description: "A decimal string when logged in; the number 0 for an anonymous caller." }),
    roles: z.record(z.string(), z.string()),
  }),
});
/** `user/token`'s 200 body. */
export const tokenReply = z.object({ token: z.string() });
/** `user/logout`'s 200 body (API 1.0). */
export const logoutReply = z.tuple([z.literal(true)]);
/** `user/logout`'s 200 body (API 1.1): the anonymous user the request now is. */
export const logoutReply11 = z.object({
  uid: z.literal(0),
  hostname: z.string().meta({ description: "The client's address." }),
  roles: z.record(z.string(), z.string()),
  cache: z.literal(0),
});
/** Every error body that has one. */
export const errorBody = z.tuple([z.string()]).meta({ description: "Drupal's message, in a one-element array." });
