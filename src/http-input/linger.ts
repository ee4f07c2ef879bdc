import { Socket } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { LINGER_BYTES, LINGER_IDLE_MS, LINGER_MS } from "./linger-limits.js";

/**
 * Closes the connection after a reply sent before the request's body was read (a 413),
 * without losing the reply to a reset. Closing a socket with unread bytes in it, or while
 * the client is still sending, makes the kernel answer with a reset (RFC 9112 §9.6), and a
 * client still writing then sees a network error instead of the 413 waiting for it. So:
 * `Connection: close`, the reply, a half-close (FIN) so the client knows to stop, and the
 * rest of the upload read and thrown away until the client has sent it all or closed its
 * side, or 10 s, 2 s of silence or 64 MiB have gone by, whichever comes first. Nothing of
 * it is kept. A request whose body was already read closes as Node closes any other.
 */
export function closeAfterReply(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("Connection", "close");
  const socket = req.socket;
  if (req.complete || socket.destroyed) return;
  let replied = false;
  let drained = false;
  let discarded = 0;

  const timers = [setTimeout(() => socket.destroy(), LINGER_MS), setTimeout(() => socket.destroy(), LINGER_IDLE_MS)];
  for (const timer of timers) timer.unref();
  socket.once("close", () => timers.forEach(clearTimeout));
  // Once the reply is out and the client has sent everything, no unread byte can trigger a reset.
  const settle = () => {
    if (replied && drained) Socket.prototype.destroySoon.call(socket);
  };
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) return void socket.destroy();
    timers[1]!.refresh();
  });
  req.once("end", () => {
    drained = true;
    settle();
  });
  socket.once("end", () => {
    drained = true;
    settle();
  });
  req.resume();
  // Node ends a `Connection: close` reply with socket.destroySoon(), which destroys the
  // socket as soon as the reply is written, while the upload is still arriving. Send the
  // FIN only, and destroy once the client is done (above).
  socket.destroySoon = function halfClose(this: Socket) {
    replied = true;
    if (this.writable) this.end();
    settle();
  };
}
