import type { Readable } from "node:stream";
import { SessionAuthError } from "../errors.js";

/**
 * Reads a Node request stream up to `limit` bytes; over it (declared or counted), `ERR_BODY_TOO_LARGE`
 * at once, the stream paused and nothing more buffered (the binding's 413 does the rest).
 *
 * @param declaredLength - The `Content-Length` header, if any.
 */
export function readStream(stream: Readable, limit: number, declaredLength: string | undefined): Promise<Buffer> {
  const declared = Number(declaredLength);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new SessionAuthError("ERR_BODY_TOO_LARGE"));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stream.off("data", onData).off("end", onEnd).off("error", reject);
      // Stop here: the chunks read so far are dropped, and the reply deals with the rest.
      stream.pause();
      reject(new SessionAuthError("ERR_BODY_TOO_LARGE"));
    };
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    stream.on("data", onData).once("end", onEnd);
    // An aborted upload: no reply can reach the client, so this only ends the handler.
    stream.once("error", reject);
  });
}
