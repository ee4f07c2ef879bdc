/**
 * The example app (`npm start` with `SESSION_STORE=drupal7`, `TRUST_PROXY=loopback`) beside a
 * real Drupal site, behind one proxy that serves both over HTTP and HTTPS (the client says which
 * with `X-Forwarded-Proto`, as a TLS-ending proxy would, and both sides trust it from loopback),
 * and a browser's cookie jar that sends a `Secure` cookie over HTTPS only.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll } from "vitest";
import { startProxy, type Proxy } from "./beside-drupal.js";
import { testPort, type DrupalSite } from "./drupal7-site.js";

/** The example app in a process of its own. */
export interface ExampleApp {
  readonly port: number;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the example beside `site` on `port`, with `env` on top of what it needs; resolves once it listens. */
export async function startExampleBeside(site: DrupalSite, port: number, env: Record<string, string> = {}): Promise<ExampleApp> {
  let output = "";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
    env: {
      ...process.env,
      PORT: String(port),
      NODE_ENV: "production",
      SESSION_SECRET: "example-beside-drupal-secret-0123456789",
      SESSION_STORE: "drupal7",
      TRUST_PROXY: "loopback",
      DATABASE_URL: site.dbUrl,
      DRUPAL_HASH_SALT: site.hashSalt,
      ...(site.rawSids ? { DRUPAL_HASHED_SIDS: "false" } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("with drupal7 sessions")) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`the example did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The example and a proxy in front of it and the site, for a suite; `env` as {@link startExampleBeside}; `before` runs first (settings the app reads at start). */
export function exampleAndProxy(
  site: () => DrupalSite,
  portOffset: number,
  options: { env?: () => Record<string, string>; before?: () => Promise<void> } = {},
): { app: ExampleApp; proxy: Proxy } {
  const both = {} as { app: ExampleApp; proxy: Proxy };
  beforeAll(async () => {
    await options.before?.();
    both.app = await startExampleBeside(site(), testPort(portOffset), options.env?.());
    both.proxy = await startProxy(site().port, both.app.port);
  }, 90_000);
  afterAll(async () => {
    await both.proxy?.close();
    await both.app?.stop();
  });
  return both;
}

/** A reply, with its cookies. */
export interface Reply {
  readonly status: number;
  readonly text: string;
  readonly setCookie: readonly string[];
  json<T = Record<string, unknown>>(): T;
}

/** A browser of a site served over both schemes: `Secure` cookies go over HTTPS only; a request says its scheme. */
export class Browser {
  readonly cookies = new Map<string, { value: string; secure: boolean }>();
  constructor(readonly port: number) {}

  async request(
    scheme: "http" | "https",
    method: string,
    path: string,
    options: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string>; cookie?: string } = {},
  ): Promise<Reply> {
    const cookie = options.cookie ?? this.cookieHeader(scheme);
    const body =
      options.json !== undefined ? JSON.stringify(options.json) : options.form !== undefined ? new URLSearchParams(options.form).toString() : undefined;
    const type = options.json !== undefined ? "application/json" : options.form !== undefined ? "application/x-www-form-urlencoded" : undefined;
    const headers: Record<string, string> = {
      "User-Agent": "beside-drupal-browser/1.0",
      ...(scheme === "https" ? { "X-Forwarded-Proto": "https" } : {}),
      ...(cookie === undefined || cookie === "" ? {} : { Cookie: cookie }),
      ...(type === undefined ? {} : { "Content-Type": type }),
      ...(body === undefined ? {} : { "Content-Length": String(Buffer.byteLength(body)) }),
      ...options.headers,
    };
    // A connection per request (agent: false), as the proxy in front opens one per request too: no reuse race.
    const { status, text, setCookie } = await new Promise<{ status: number; text: string; setCookie: string[] }>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port: this.port, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), setCookie: res.headers["set-cookie"] ?? [] }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
    if (options.cookie === undefined) this.keep(setCookie);
    return { status, text, setCookie, json: <T>() => JSON.parse(text) as T };
  }

  /** The `Cookie` header a request over `scheme` carries. */
  cookieHeader(scheme: "http" | "https"): string {
    return [...this.cookies]
      .filter(([, cookie]) => scheme === "https" || !cookie.secure)
      .map(([name, { value }]) => `${name}=${value}`)
      .join("; ");
  }

  /** The value of a cookie held whose name starts with `prefix` (`SESS`, `SSESS`). */
  cookie(prefix: "SESS" | "SSESS"): string | undefined {
    for (const [name, { value }] of this.cookies) if (name.startsWith(prefix) && /^S?SESS[0-9a-f]{32}$/.test(name)) return value;
    return undefined;
  }

  keep(setCookie: readonly string[]): void {
    for (const header of setCookie) {
      const [pair, ...attributes] = header.split(";").map((part) => part.trim());
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const expired = attributes.some(
        (attribute) => /^max-age=(?:0|-\d+)$/i.test(attribute) || (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) < Date.now()),
      );
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, { value: pair!.slice(eq + 1), secure: attributes.some((attribute) => attribute.toLowerCase() === "secure") });
    }
  }
}

/**
 * Resolves once the site has finished its requests: PHP writes the session in a shutdown
 * function, after the client has the whole reply, and the site's one worker answers the next
 * request only after that.
 */
export async function drupalIdle(site: DrupalSite): Promise<void> {
  await (await fetch(`${site.baseUrl}/robots.txt`)).text();
}
