import type { SessionAuthErrorCode } from "../errors.js";
import { errorResponses } from "./error-responses.js";
import { json, jsonSchema, ref } from "./parts.js";
import type { Paths } from "./path-builder.js";
import type { GuardedRoute, OpenApiObject } from "./types.js";

/** The app's own routes behind `requireSession`: what the guard answers, and the route's own 200 and statuses. */
export function guardedRoutePaths(routes: readonly GuardedRoute[]): Paths {
  const paths: Paths = {};
  for (const route of routes) {
    const checksToken = route.method !== "get" && route.csrf !== false;
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
      security: [checksToken ? { sessionCookie: [], csrfToken: [] } : { sessionCookie: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: {
        "200": { description: "OK.", content: json(route.response === undefined ? {} : jsonSchema(route.response)) },
        ...own,
        ...errorResponses(codes),
      },
    };
    paths[route.path] = { ...paths[route.path], [route.method]: operation };
  }
  return paths;
}
