import { SessionAuthError } from "../errors.js";
import { LINGER_BYTES, LINGER_IDLE_MS, LINGER_MS } from "./linger-limits.js";
import type { RequestBody } from "./request.js";

/** Reads a body up to `limit` bytes (`ERR_BODY_TOO_LARGE` at once past it); one already read elsewhere is the app's handler-order bug. */
export async function readWebBody(request: Request, limit: number): Promise<RequestBody> {
  if (request.bodyUsed) throw new TypeError("services-session-auth: the request body was already read; let the session handler see the request first");
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    // A stream something else holds (and has not read) is left to it.
    if (request.body !== null && !request.body.locked) discardRest(request.body.getReader());
    throw new SessionAuthError("ERR_BODY_TOO_LARGE");
  }
  if (request.body === null) return { raw: Buffer.alloc(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let empty = 0;
  for (let read = 1; ; read++) {
    const { done, value } = await reader.read();
    if (done) return { raw: Buffer.concat(chunks, size) };
    size += value.byteLength;
    // Empty chunks are bounded too (more of them than the limit in bytes is no body anyone
    // sends), or an endless stream of them, one the app built, would be read forever.
    if (size > limit || (value.byteLength === 0 && ++empty > limit)) {
      discardRest(reader);
      throw new SessionAuthError("ERR_BODY_TOO_LARGE");
    }
    chunks.push(value);
    if (read % CHUNKS_PER_TURN === 0) await nextTurn();
  }
}

/** Chunks read per event-loop turn: a stream that answers at once would else starve timers (docs/performance.md#web-bodies-and-the-event-loop). */
const CHUNKS_PER_TURN = 64;

/** A turn of the event loop: `setTimeout` is the one timer every runtime has. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Drains a refused upload while the 413 goes out, as the Express binding lingers: left unread,
 * @hono/node-server stalls then closes under the client; cancelled at once, the reply is lost.
 * Bounded in bytes, time and silence, the time on the monotonic clock (no timer fires meanwhile).
 */
function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  let discarded = 0;
  let chunks = 0;
  const deadline = performance.now() + LINGER_MS;
  const stop = () => void reader.cancel().catch(() => undefined);
  // Plain timers, armed anew: Deno's and Workers' setTimeout return a number, with no refresh() or unref().
  const timer = (ms: number) => {
    const made = setTimeout(stop, ms);
    (made as { unref?: () => void }).unref?.();
    return made;
  };
  const overall = timer(LINGER_MS);
  let idle = timer(LINGER_IDLE_MS);
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // A stream of the app's own making may carry chunks other than bytes: counted as one byte each at least.
        discarded += Math.max(1, Number(value?.byteLength) || 0);
        if (discarded > LINGER_BYTES || performance.now() > deadline) return stop();
        clearTimeout(idle);
        idle = timer(LINGER_IDLE_MS);
        if (++chunks % CHUNKS_PER_TURN === 0) await nextTurn();
      }
    } catch {
      // The connection went away, or a timer cancelled the stream: nothing is left to read.
    } finally {
      clearTimeout(overall);
      clearTimeout(idle);
    }
  })();
}
