import { z } from "zod";
import { resolveDocumentedOptions, type DocumentedSettings } from "../options/schema.js";
import type { SessionAuthOptions } from "../options/options.js";
import { parseOptions } from "../validate.js";
import { SessionAuthError, type SessionAuthErrorCode } from "../errors.js";
import { loginBodySchema } from "../endpoint/login-arguments.js";
import { connectReply, errorBody, loginReply, logoutReply, logoutReply11, tokenReply } from "./reply-schemas.js";
import { checkPlain } from "../wire/html.js";
import { drupalSessionName } from "../cookie/session-name.js";
import { wireError } from "../wire/status.js";
import { ACCOUNT_SCHEMAS, accountPaths } from "./account-paths.js";

/** A JSON value as it goes into the document. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };
/** An OpenAPI 3.1 document (or any part of one): plain JSON, ready for `JSON.stringify`. */
export type OpenApiObject = { [key: string]: Json };

/** An HTTP method an app route guarded by {@link SessionAuthRouter.requireSession} may have. */
export type GuardedMethod = "get" | "post" | "put" | "patch" | "delete";

/**
 * One of the app's own routes behind {@link SessionAuthRouter.requireSession}, to describe in the document.
 *
 * @example
 * ```ts
 * const route: GuardedRoute = { method: "post", path: "/services/json/players", summary: "Add a player", roles: ["administrator"], response: playerSchema };
 * ```
 */
export interface GuardedRoute {
  readonly method: GuardedMethod;
  /** The full path in OpenAPI form, e.g. `/services/json/players/{id}`; `{…}` segments become path parameters. */
  readonly path: string;
  /** A one-line summary of the operation. @default none */
  readonly summary?: string;
  /** The `roles` given to this route's `requireSession`: without one of them the answer is a 403. @default none */
  readonly roles?: readonly string[];
  /** The `csrf` given to this route's `requireSession`. @default true */
  readonly csrf?: boolean;
  /**
   * The zod 4 schema of the route's 200 body (`zod/mini` too; zod 3 is refused with a TypeError).
   * @default any JSON
   */
  readonly response?: z.core.$ZodType;
  /** Other statuses the route's own handler answers, with what they mean, e.g. `{ 404: "No such player." }`. @default none */
  readonly responses?: Readonly<Record<number, string>>;
}

/** Options of {@link openApiDocument}. */
export interface OpenApiOptions {
  /**
   * The options given to `createSessionAuthRouter` (stores untouched), checked by the same rules:
   * they shape the document as they shape the wire.
   * @default the defaults of `createSessionAuthRouter`
   */
  readonly auth?: Partial<SessionAuthOptions>;
  /** Where the endpoint is served, as clients see it: the router's mount path and its `endpoint`. @default "/" + `auth.endpoint` ("/services/json") */
  readonly endpointPath?: string;
  /** The document's `info`. @default title "Drupal 7 Services session API", version "1.0.0" */
  readonly info?: { readonly title?: string; readonly version?: string; readonly description?: string };
  /** The document's `servers`. @default none (the document's own origin) */
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
  /** The app's routes behind {@link SessionAuthRouter.requireSession}. @default none */
  readonly routes?: readonly GuardedRoute[];
}

/** Why a value is not a zod 4 schema (classic, mini, or the app's own copy, by their shared `_zod`), or `undefined`. */
function zodSchemaProblem(value: unknown): string | undefined {
  if (typeof value === "object" && value !== null && "_zod" in value) return undefined;
  if (typeof value === "object" && value !== null && "_def" in value && typeof (value as { safeParse?: unknown }).safeParse === "function") {
    return 'is a zod 3 schema, and openApiDocument needs zod 4: install zod@^4 and import it from "zod" (with zod 3.25, from "zod/v4")';
  }
  return "must be a zod 4 schema";
}
const zodSchema = z.custom<z.core.$ZodType>((value) => zodSchemaProblem(value) === undefined, { error: (issue) => zodSchemaProblem(issue.input) });
const routesShape = {
  endpointPath: z
    .string()
    .regex(/^\/(?:.*[^/])?$/, "must start with / and not end with /")
    .optional(),
  info: z.strictObject({ title: z.string().optional(), version: z.string().optional(), description: z.string().optional() }).optional(),
  servers: z
    .array(z.strictObject({ url: z.string(), description: z.string().optional() }))
    .readonly()
    .optional(),
  routes: z
    .array(
      z.strictObject({
        method: z.enum(["get", "post", "put", "patch", "delete"]),
        path: z.string().startsWith("/"),
        summary: z.string().optional(),
        roles: z.array(z.string()).readonly().optional(),
        csrf: z.boolean().optional(),
        response: zodSchema.optional(),
        responses: z.record(z.string().regex(/^[1-5]\d\d$/, "must be an HTTP status"), z.string()).optional(),
      }),
    )
    .readonly()
    .optional(),
};
const routesSchema = z.strictObject(routesShape);
// The options object itself is checked by the package's own resolver; its stores are not read.
const optionsSchema = z.strictObject({ ...routesShape, auth: z.looseObject({}).optional() });

function jsonSchema(schema: z.core.$ZodType): OpenApiObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" });
  return rest as OpenApiObject;
}

const ref = (name: string): OpenApiObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: OpenApiObject): OpenApiObject => ({ "application/json": { schema } });
const stringHeader = (description: string): OpenApiObject => ({ description, schema: { type: "string" } });

/** The errors every Services action can answer: response-format negotiation, then the body. */
const BODY_ERRORS: readonly SessionAuthErrorCode[] = [
  "ERR_NOT_ACCEPTABLE",
  "ERR_INVALID_JSON",
  "ERR_UNSUPPORTED_CONTENT_TYPE",
  "ERR_BODY_TOO_LARGE",
  "ERR_STORE_UNAVAILABLE",
];

/** A detail for each code that names one, so the examples read as the real messages. */
const EXAMPLE_DETAIL: Partial<Record<SessionAuthErrorCode, string>> = {
  ERR_MISSING_ARGUMENT: "username",
  ERR_ALREADY_LOGGED_IN: "demo",
  ERR_ACCOUNT_BLOCKED: "demo",
  ERR_UNSUPPORTED_CONTENT_TYPE: "text/csv",
  ERR_FORBIDDEN: "demo",
};

/** An empty body, as Services sends for routing and format errors, with PHP's default type. */
const EMPTY_HTML: OpenApiObject = { "text/html": { schema: { type: "string", maxLength: 0 } } };

/** The error responses of a list of codes, grouped by status, from the one status table. */
function errorResponses(codes: readonly SessionAuthErrorCode[]): Record<string, OpenApiObject> {
  const byStatus = new Map<number, { code: SessionAuthErrorCode; message: string; empty: boolean }[]>();
  for (const code of codes) {
    const wire = wireError(new SessionAuthError(code, EXAMPLE_DETAIL[code]));
    const message = wire.body?.[0] ?? wire.reason;
    byStatus.set(wire.status, [...(byStatus.get(wire.status) ?? []), { code, message, empty: wire.body === null }]);
  }
  const out: Record<string, OpenApiObject> = {};
  for (const [status, errors] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples: Record<string, Json> = {};
    for (const { code, message, empty } of errors) if (!empty) examples[code] = { summary: message, value: [message] };
    const withBody = Object.keys(examples).length > 0;
    const response: OpenApiObject = {
      description: errors.map(({ message, empty }) => (empty ? `${message} (empty body)` : message)).join(" | "),
      content: {
        ...(withBody ? { "application/json": { schema: ref("ErrorBody"), examples } } : {}),
        ...(errors.some(({ empty }) => empty) ? EMPTY_HTML : {}),
      },
    };
    const waits = [...new Set(errors.map(({ code }) => wireError(new SessionAuthError(code)).retryAfter).filter((wait) => wait !== undefined))];
    const queued = errors.some(({ code }) => code === "ERR_LOGIN_BUSY") ? " For a full login queue, the seconds until it should have drained." : "";
    if (waits.length > 0 || queued !== "") {
      response.headers = {
        "Retry-After": stringHeader(`${waits.length > 0 ? `Seconds to wait: ${waits.map((wait) => `\`${wait}\``).join(" or ")}.` : ""}${queued}`.trim()),
      };
    }
    out[String(status)] = response;
  }
  return out;
}

/** The session cookie's attributes as they are set with these options, for the documents' text. */
function cookieAttributes(auth: { cookieDomain?: string | undefined; cookieSecure?: string | undefined; sameSite?: string | undefined }): string {
  const domain =
    auth.cookieDomain === undefined
      ? "`domain=.<host>` by Drupal's rule (none for IP addresses, `localhost` and single-label hosts)"
      : `\`domain\` from \`${auth.cookieDomain}\` by Drupal's rule`;
  const secure = auth.cookieSecure === "always" ? "`secure` always" : "`secure` on HTTPS";
  const sameSite = auth.sameSite === undefined ? "no `SameSite` (as Drupal 7)" : `\`SameSite=${auth.sameSite[0]!.toUpperCase()}${auth.sameSite.slice(1)}\``;
  return `\`path=/\`, ${domain}, ${secure}, \`HttpOnly\`, ${sameSite}`;
}

/**
 * The Services calls and the app's `requireSession` routes as an OpenAPI 3.1 document: the login
 * schema is the one requests are checked with, and every status comes from the one status table.
 *
 * @example
 * ```ts
 * const document = openApiDocument({
 *   auth: options, // the object given to createSessionAuthRouter
 *   routes: [{ method: "get", path: "/services/json/players", summary: "All players" }],
 * });
 * app.get("/openapi.json", (_req, res) => res.json(document));
 * ```
 * @throws TypeError when an option is invalid.
 */
export function openApiDocument(options: OpenApiOptions = {}): OpenApiObject {
  const { auth, ...routes } = parseOptions(optionsSchema, options, "openApiDocument");
  return openApiFromSettings(resolveDocumentedOptions(auth ?? {}, "openApiDocument"), routes);
}

/** The document's own part of {@link OpenApiOptions}: where the endpoint is, its `info`, `servers` and the app's guarded routes. */
export type OpenApiRoutes = Omit<OpenApiOptions, "auth">;

/** The document of a set-up from its resolved options: the same settings that shape the wire shape the document. */
export function openApiFromSettings(settings: DocumentedSettings, options: OpenApiRoutes = {}): OpenApiObject {
  const parsed = parseOptions(routesSchema, options, "openApi");
  const { cookie: auth, login, endpoint } = settings;
  const base = parsed.endpointPath ?? endpoint.endpointPath;
  const limits = { maxNameLength: login.maxNameLength, maxPasswordBytes: login.maxPasswordBytes };
  const v11 = endpoint.loginApiVersion === "1.1";
  const logoutV11 = endpoint.logoutApiVersion === "1.1";
  const blocked = login.blockedAccountResponse === "drupal";
  const throttled = login.throttle !== false;
  const cors = settings.cors.enabled;
  const devices = login.deviceCookies === false ? undefined : login.deviceCookies;
  const deviceCookie =
    devices === undefined
      ? ""
      : ` Then the device cookie, \`${devices.name}=<signed token>; expires=…; Max-Age=${devices.maxAge}\` with the same attributes: a later login to the same account that carries it has a failure budget of its own, whatever others did from its address or to the account, and goes ahead of other clients' password checks.`;

  const cookieName =
    auth.sessionName ??
    (auth.cookieDomain !== undefined || auth.baseUrl !== undefined
      ? drupalSessionName({
          cookieDomain: auth.cookieDomain,
          baseUrl: auth.baseUrl,
          host: "",
          secure: auth.cookieSecure === "always" || auth.baseUrl?.startsWith("https:") === true,
        })
      : undefined);

  const loggedInWithToken = { sessionCookie: [], csrfToken: [] };
  const anyCaller: Json[] = [{}, loggedInWithToken];
  const bodyTypes = (schema: OpenApiObject): OpenApiObject => Object.fromEntries([...endpoint.parsers].map((type) => [type, { schema }]));
  const attributes = cookieAttributes(auth);
  const post = (
    operationId: string,
    summary: string,
    description: string,
    codes: readonly SessionAuthErrorCode[],
    ok: OpenApiObject,
    extra: OpenApiObject = {},
  ): OpenApiObject => ({
    post: {
      operationId,
      tags: ["Services session"],
      summary,
      description: `${description}\n\nAlso answered without the \`.json\` suffix: the format then follows \`Accept\` (\`Vary: Accept\`), and an \`Accept\` that admits no JSON is a \`406\`. Other methods (also through \`X-HTTP-Method-Override\` or \`?_method=\`): \`404\`; HEAD and OPTIONS: \`200\` with no body${cors ? ", except a CORS preflight from an origin of `trustedOrigins`: `204` with the `Access-Control-Allow-*` headers (docs/hybrid-apps.md)" : ""}.`,
      security: anyCaller,
      ...extra,
      responses: { "200": ok, ...errorResponses([...codes, ...BODY_ERRORS]) },
    },
  });
  const loginCodes: SessionAuthErrorCode[] = [
    "ERR_MISSING_ARGUMENT",
    "ERR_INVALID_CREDENTIALS",
    "ERR_CSRF",
    "ERR_ALREADY_LOGGED_IN",
    "ERR_STORE_FULL",
    "ERR_CROSS_SITE_LOGIN",
    "ERR_LOGIN_BUSY",
  ];
  if (blocked) loginCodes.push("ERR_ACCOUNT_BLOCKED");
  if (throttled) loginCodes.push("ERR_USER_THROTTLED", "ERR_IP_THROTTLED");

  const paths: Record<string, OpenApiObject> = {
    [`${base}/user/login.json`]: post(
      "userLogin",
      "Log in",
      `Checks the name and password and opens a session: a new session id every time, set as the session cookie. A login posted from another site's page (an \`Origin\` that is not the site's own or trusted, or \`Sec-Fetch-Site: cross-site\`) is refused with a 403; one that would wait too long for its password check gets a 503 with \`Retry-After\`. ${v11 ? "API 1.1: `name`/`pass`." : "API 1.0: `username`/`password` (`name`/`pass` with the header `Services-User-Login-Version: 1.1`, as Services reads any `services_<resource>_<method>_version` header)."} A body with no Content-Type is read as a form.`,
      loginCodes,
      {
        description: "Logged in.",
        headers: {
          "Set-Cookie": stringHeader(
            `The session cookie, as Drupal 7's PHP writes it: \`<session_name>=<sessid>; expires=…; Max-Age=…\`, ${attributes}. A copy of the name held elsewhere (host-only, or Drupal's domain) is deleted in the same reply.${deviceCookie}`,
          ),
        },
        content: json(ref("LoginReply")),
      },
      { requestBody: { required: true, content: bodyTypes(ref("LoginBody")) } },
    ),
    [`${base}/system/connect.json`]: post(
      "systemConnect",
      "Who am I",
      "The current session and its user. An anonymous caller gets user 0 and an id that is never stored: a random one and no cookie, or, for a cookie that names no live session, that cookie's value and its deletion.",
      ["ERR_CSRF"],
      { description: "The session and its user.", content: json(ref("ConnectReply")) },
    ),
    [`${base}/user/logout.json`]: post(
      "userLogout",
      "Log out",
      `Deletes the session on the server and expires the cookie. ${logoutV11 ? "API 1.1: answers the anonymous user." : "API 1.0: answers `[true]` (the anonymous user with the header `Services-User-Logout-Version: 1.1`)."}`,
      ["ERR_CSRF", "ERR_NOT_LOGGED_IN"],
      {
        description: "Logged out.",
        headers: {
          "Set-Cookie": stringHeader(
            "The expired session cookie (`<session_name>=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0`), with the domain it was set with, and for a host-only copy.",
          ),
          ...(endpoint.clearSiteData ? { "Clear-Site-Data": stringHeader('`"cookies"`: every cookie of the origin is cleared.') } : {}),
        },
        content: json(ref(logoutV11 ? "LogoutReply11" : "LogoutReply")),
      },
    ),
    [`${base}/user/token.json`]: post(
      "userToken",
      "CSRF token (JSON)",
      "The session's CSRF token: a random one for a caller without a session cookie, and for a cookie that names no live session, that cookie's token (with the cookie's deletion). Never CSRF-checked.",
      [],
      { description: "The token.", content: json(ref("TokenReply")) },
      { security: [{}, { sessionCookie: [] }] },
    ),
  };

  const sessionToken = (method: "get" | "post"): OpenApiObject => ({
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
  paths["/services/session/token"] = { get: sessionToken("get"), post: sessionToken("post") };
  const endpointName = checkPlain(endpoint.endpointName);
  const endpointRoot = (method: "get" | "post"): OpenApiObject => ({
    operationId: method === "get" ? "endpointRoot" : "endpointRootPost",
    tags: ["Services session"],
    summary: "Endpoint check",
    description: "The endpoint's own path answers any method with Services' plain-text message; clients use it as a health check.",
    security: [{}],
    responses: {
      "200": {
        description: "The endpoint is up.",
        content: { "text/html": { schema: { type: "string", const: `Services Endpoint "${endpointName}" has been setup successfully.` } } },
      },
    },
  });
  paths[base] = { get: endpointRoot("get"), post: endpointRoot("post") };
  const accountCalls = settings.accounts?.calls ?? new Set();
  Object.assign(paths, accountPaths({ base, calls: accountCalls, bodyTypes }));

  for (const route of parsed.routes ?? []) {
    const unsafe = route.method !== "get";
    const checksToken = unsafe && route.csrf !== false;
    const codes: SessionAuthErrorCode[] = ["ERR_UNAUTHENTICATED"];
    if (checksToken) codes.push("ERR_CSRF");
    if (route.roles !== undefined && route.roles.length > 0) codes.push("ERR_FORBIDDEN");
    codes.push("ERR_STORE_UNAVAILABLE");
    const own: Record<string, OpenApiObject> = {};
    for (const [status, description] of Object.entries(route.responses ?? {})) own[status] = { description, content: json(ref("ErrorBody")) };
    const parameters = [...route.path.matchAll(/\{([^{}]+)\}/g)].map(([, name]) => ({ name: name!, in: "path", required: true, schema: { type: "string" } }));
    const roles = route.roles?.length ? ` Requires one of the roles: ${route.roles.join(", ")}.` : "";
    const operation: OpenApiObject = {
      tags: ["Protected"],
      ...(route.summary === undefined ? {} : { summary: route.summary }),
      description: `Guarded by \`requireSession\`: a live session cookie${checksToken ? " and its `X-CSRF-Token`" : ""}.${roles}`,
      security: [checksToken ? loggedInWithToken : { sessionCookie: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: {
        "200": { description: "OK.", content: json(route.response === undefined ? {} : jsonSchema(route.response)) },
        ...own,
        ...errorResponses(codes),
      },
    };
    paths[route.path] = { ...paths[route.path], [route.method]: operation };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: parsed.info?.title ?? "Drupal 7 Services session API",
      version: parsed.info?.version ?? "1.0.0",
      description:
        parsed.info?.description ??
        "Session authentication as Drupal 7's Services module answers it. Errors are a JSON array holding Drupal's message, with the message in the status line too (`401 Unauthorized : Wrong username or password.`); routing and format errors have no body and PHP's default `text/html; charset=UTF-8`. Replies carry `Cache-Control: no-store`.",
    },
    ...(parsed.servers === undefined ? {} : { servers: parsed.servers.map((server) => ({ ...server })) }),
    tags: [
      { name: "Services session", description: "The calls of Drupal 7 Services' user and system resources, and the session token call." },
      ...(accountCalls.size === 0
        ? []
        : [
            {
              name: "Services user resource",
              description: "The account calls served (docs/accounts.md): registration, forgot password, one-time links, accounts.",
            },
          ]),
      { name: "Protected", description: "The app's routes behind `requireSession`." },
    ],
    paths,
    components: {
      schemas: {
        LoginBody: jsonSchema(loginBodySchema(limits)),
        LoginReply: jsonSchema(loginReply),
        ConnectReply: jsonSchema(connectReply),
        LogoutReply: jsonSchema(logoutReply),
        LogoutReply11: jsonSchema(logoutReply11),
        TokenReply: jsonSchema(tokenReply),
        ErrorBody: jsonSchema(errorBody),
        ...(accountCalls.size === 0 ? {} : Object.fromEntries(Object.entries(ACCOUNT_SCHEMAS).map(([name, schema]) => [name, jsonSchema(schema)]))),
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
    },
  };
}
