import { checkPlain } from "../../wire/html.js";
import type { PathBuilder } from "../path-builder.js";
import type { OpenApiObject } from "../types.js";

/** The endpoint's own path: Services' plain-text message, which clients use as a health check. */
export const endpointRoot: PathBuilder = ({ base, settings }) => {
  const endpointName = checkPlain(settings.endpoint.endpointName);
  const operation = (method: "get" | "post"): OpenApiObject => ({
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
  return { [base]: { get: operation("get"), post: operation("post") } };
};
