import { connect } from "node:net";

/** A response read off the socket as it came: the status line's parts, headers in order, body bytes. */
export interface RawResponse {
  readonly status: number;
  readonly reason: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
  /** When the response arrived, in Unix seconds (for cookie expiry checks). */
  readonly arrivedAt: number;
}

/**
 * Sends one request over a raw loopback socket, exactly as given: the request line, the
 * headers in order (no Host, Content-Length or Content-Type added), then the body. The
 * request carries `Connection: close`, so the server ends the socket after its reply.
 */
export function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: Buffer,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${target}`)));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), method === "HEAD"));
      } catch (error) {
        reject(error as Error);
      }
    });
    const head = `${method} ${target} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;
    // Not end(): a client's half-close before the reply makes Node's server drop a slow request.
    socket.write(Buffer.concat([Buffer.from(head, "latin1"), body]));
  });
}

function parseResponse(bytes: Buffer, head: boolean): RawResponse {
  const end = bytes.indexOf("\r\n\r\n");
  if (end === -1) throw new Error(`incomplete response: ${bytes.toString("latin1").slice(0, 200)}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = /^HTTP\/1\.1 (\d{3})(?: (.*))?$/.exec(statusLine!);
  if (status === null) throw new Error(`not a status line: ${statusLine}`);
  const headers = lines.map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon), line.slice(colon + 1).trim()] as const;
  });
  let body = head ? Buffer.alloc(0) : bytes.subarray(end + 4);
  if (headers.some(([name, value]) => name.toLowerCase() === "transfer-encoding" && value === "chunked")) body = unchunk(body);
  return { status: Number(status[1]), reason: status[2] ?? "", headers, body, arrivedAt: Math.floor(Date.now() / 1000) };
}

function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
