import type { HttpRequest } from "../../src/http-input/request.js";

/** What a test says of a request in the engine's one shape: its method, target, headers (any case), body and client. */
export interface PlainRequestInit {
  readonly method?: string;
  readonly target?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly secure?: boolean;
  readonly clientAddress?: string;
}

/** A request in the engine's one shape, as a binding for another framework would hand it in. */
export function plainRequest(init: PlainRequestInit = {}): HttpRequest {
  const headers = new Map(Object.entries(init.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    method: init.method ?? "GET",
    target: init.target ?? "/",
    secure: init.secure ?? false,
    header: (name) => headers.get(name),
    headerNames: () => headers.keys(),
    clientAddress: () => init.clientAddress ?? "203.0.113.9",
    requestId: () => undefined,
    body: async () => ({ raw: Buffer.from(init.body ?? "") }),
    parsedBody: () => undefined,
  };
}
