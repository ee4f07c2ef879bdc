import { connect, type Socket } from "node:net";

const PIECE = 64 * 1024;

export interface Upload {
  readonly path: string;
  readonly size: number;
  readonly chunked: boolean;
  readonly contentType: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
  /** Milliseconds to wait after each 64 KiB piece: a client on a slow uplink. @default 0 */
  readonly pace?: number;
}

export interface Outcome {
  /** Everything the server sent, as text. */
  readonly reply: string;
  /** Body bytes the client managed to write. */
  readonly written: number;
  readonly writeError: string | undefined;
  readonly readError: string | undefined;
}

export function head({ path, size, chunked, contentType, headers = {} }: Upload): string {
  const lines = [`POST ${path} HTTP/1.1`, "Host: 127.0.0.1", chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${size}`];
  if (contentType !== undefined) lines.push(`Content-Type: ${contentType}`);
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

export function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
}

/**
 * Writes the request and its whole body without reading (the socket stays paused, as a
 * client that reads only once it has sent everything), then reads until the server closes.
 * `allowHalfOpen`, so the server's FIN does not stop the writes: only a reset can.
 */
export async function upload(port: number, request: Upload): Promise<Outcome> {
  const socket = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
  socket.pause();
  let readError: string | undefined;
  socket.on("error", (error) => (readError ??= error.message));
  await new Promise((resolve) => socket.once("connect", resolve));
  let written = 0;
  let writeError: string | undefined;
  try {
    await write(socket, head(request));
    const piece = Buffer.alloc(PIECE, request.contentType === "application/json" ? "7" : "a");
    while (written < request.size) {
      const part = piece.subarray(0, Math.min(PIECE, request.size - written));
      await write(socket, request.chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]) : part);
      written += part.length;
      if (request.pace !== undefined) await new Promise((resolve) => setTimeout(resolve, request.pace));
    }
    if (request.chunked) await write(socket, "0\r\n\r\n");
  } catch (error) {
    writeError = (error as Error).message;
  }
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.resume();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve();
    }, 20_000);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once("end", () => socket.end());
  });
  return { reply: Buffer.concat(chunks).toString("latin1"), written, writeError, readError };
}

/** The status line of a raw reply. */
export function statusLine(reply: string): string {
  return reply.slice(0, reply.indexOf("\r\n"));
}
