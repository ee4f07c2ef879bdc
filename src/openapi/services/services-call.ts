import type { SessionAuthErrorCode } from "../../errors.js";
import { errorResponses } from "../error-responses.js";
import type { PathContext } from "../path-builder.js";
import type { OpenApiObject } from "../types.js";

/** The errors every Services action can answer: response-format negotiation, then the body. */
const BODY_ERRORS: readonly SessionAuthErrorCode[] = [
  "ERR_NOT_ACCEPTABLE",
  "ERR_INVALID_JSON",
  "ERR_UNSUPPORTED_CONTENT_TYPE",
  "ERR_BODY_TOO_LARGE",
  "ERR_STORE_UNAVAILABLE",
];

/** One call of Services' user or system resource. */
export interface ServicesCall {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  /** The errors of the call itself; those of the body and the format follow. */
  readonly codes: readonly SessionAuthErrorCode[];
  /** The 200 response. */
  readonly ok: OpenApiObject;
  /** More of the operation (its `requestBody`, its own `security`). */
  readonly extra?: OpenApiObject;
}

/** A Services call's path item: a POST, answered by any caller, with how the endpoint answers other methods and formats. */
export function servicesCall({ settings }: PathContext, { operationId, summary, description, codes, ok, extra = {} }: ServicesCall): OpenApiObject {
  const cors = settings.cors.enabled;
  return {
    post: {
      operationId,
      tags: ["Services session"],
      summary,
      description: `${description}\n\nAlso answered without the \`.json\` suffix: the format then follows \`Accept\` (\`Vary: Accept\`), and an \`Accept\` that admits no JSON is a \`406\`. Other methods (also through \`X-HTTP-Method-Override\` or \`?_method=\`): \`404\`; HEAD and OPTIONS: \`200\` with no body${cors ? ", except a CORS preflight from an origin of `trustedOrigins`: `204` with the `Access-Control-Allow-*` headers (docs/hybrid-apps.md)" : ""}.`,
      security: [{}, { sessionCookie: [], csrfToken: [] }],
      ...extra,
      responses: { "200": ok, ...errorResponses([...codes, ...BODY_ERRORS]) },
    },
  };
}
