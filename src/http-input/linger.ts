import { Socket } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { LINGER_BYTES, LINGER_IDLE_MS, LINGER_MS } from "./linger-limits.js";

/** Closes the connection after an early 413 without a reset losing it (RFC 9112 §9.6): reply, FIN, then the rest drained within limits. */
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
  // Node's destroySoon() would destroy the socket while the upload still arrives: send the FIN
  // only, and destroy once the client is done (above).
  socket.destroySoon = function halfClose(this: Socket) {
    replied = true;
    if (this.writable) this.end();
    settle();
  };
}
