import { SessionAuthError, type SessionAuthErrorCode } from "../errors.js";
import { wireError } from "../wire/status.js";
import { ref, stringHeader } from "./parts.js";
import type { Json, OpenApiObject } from "./types.js";

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
export function errorResponses(codes: readonly SessionAuthErrorCode[]): Record<string, OpenApiObject> {
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
