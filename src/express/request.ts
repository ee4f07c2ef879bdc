import type { IncomingMessage } from "node:http";
import { IncomingHttpRequest } from "../http-input/incoming-request.js";
import type { RequestBody } from "../http-input/request.js";
import { originForm } from "../http-input/target.js";

/** What the binding reads of an Express request, written out so no app needs Express's types. */
export interface ExpressRequest extends IncomingMessage {
  readonly secure: boolean;
  readonly ip?: string | undefined;
  readonly baseUrl?: string;
  readonly body?: unknown;
  /** The app's request id (pino-http and most request-id middleware set it). */
  readonly id?: unknown;
}

/** An Express request in the engine's one shape: the translation, and nothing else. */
export class ExpressHttpRequest extends IncomingHttpRequest {
  readonly #req: ExpressRequest;

  /** @param target - The target relative to where the router is mounted: `req.url` unless given. */
  constructor(req: ExpressRequest, target: string = req.url ?? "/") {
    super(req, originForm(target));
    this.#req = req;
  }

  get secure(): boolean {
    return this.#req.secure;
  }

  clientAddress(): string | undefined {
    return this.#req.ip ?? this.#req.socket.remoteAddress;
  }

  /** `req.id`, as pino-http and most request-id middleware set it (cut to 128 characters). */
  requestId(): string | undefined {
    const own = this.#req.id;
    return typeof own === "string" || (typeof own === "number" && Number.isFinite(own)) ? String(own).slice(0, 128) || undefined : undefined;
  }

  /** The body from the stream; one a parser in front (`express.json()`, …) already consumed, as it parsed it. */
  override body(limit: number): Promise<RequestBody> {
    const req = this.#req;
    const consumed = (req as { _body?: boolean })._body === true || req.readableEnded;
    return consumed ? Promise.resolve({ parsed: req.body === undefined ? "" : req.body }) : super.body(limit);
  }

  parsedBody(): unknown {
    return this.#req.body;
  }
}
