/**
 * The Node side of a side-by-side test and what stands in front of both: an app on the
 * package sharing a real Drupal site's database (as docs/running-beside-drupal-7.md sets it
 * up), a reverse proxy that splits paths between the two (all of the endpoint to Node: the
 * apps here serve their own routes under it), and a client with a cookie jar that talks to
 * the proxy only.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll } from "vitest";
import { type AuthEvent, type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import {
  drupal7CsrfToken,
  drupal7Hasher,
  drupal7SessionStore,
  drupal7UserStore,
  readDrupal7PrivateKey,
  type Drupal7SessionStore,
} from "services-session-auth/drupal";
import { CookieJar } from "../../helpers/cookie-jar.js";
import type { DrupalSite } from "./drupal7-site.js";

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function closing(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The app on the package: Drupal's users, sessions and CSRF tokens, the parallel-run setting on. */
export interface NodeSide {
  readonly port: number;
  readonly sessionStore: Drupal7SessionStore;
  readonly events: AuthEvent[];
  close(): Promise<void>;
}

/** Starts the app beside `site`; `extra` adds options (timeouts, say). */
export async function startNodeSide(site: DrupalSite, extra: Partial<SessionAuthOptions> = {}): Promise<NodeSide> {
  const { pool } = site;
  const sessionStore = drupal7SessionStore({ pool, scheme: "http", hashedSids: site.rawSids ? false : "auto" });
  await sessionStore.ready;
  const events: AuthEvent[] = [];
  const auth = createSessionAuthRouter({
    userStore: drupal7UserStore({ pool, parallelRun: true }),
    sessionStore,
    hasher: drupal7Hasher(),
    csrfToken: drupal7CsrfToken({ privateKey: await readDrupal7PrivateKey({ pool }), hashSalt: site.hashSalt }),
    secret: "side-by-side-test-secret-0123456789abcdef",
    onEvent: (event) => events.push(event),
    ...extra,
  });
  const app = express();
  // The proxy in front is on loopback: the client's address comes from X-Forwarded-For.
  app.set("trust proxy", "loopback");
  app.use(auth);
  app.get("/services/json/me", auth.requireSession(), (req, res) => void res.json({ uid: req.auth!.user.uid, name: req.auth!.user.name }));
  app.post("/services/json/me", auth.requireSession(), (req, res) => void res.json({ uid: req.auth!.user.uid, posted: true }));
  const server = createServer(app);
  const port = await listening(server);
  return { port, sessionStore, events, close: () => closing(server) };
}

/** Where the proxy sends requests: all to Drupal, all to Node, or the strangler split. */
export type ProxyMode = "drupal" | "split" | "node";

/** The Services paths these suites send to Node: the whole endpoint, the token, and the `?q=` forms of both (the guide moves the session calls and the resources ported, test/drupal/side-by-side/proxy-configs.test.ts). */
export function isServicesPath(url: string): boolean {
  const { pathname, searchParams } = new URL(url, "http://proxy");
  const q = searchParams.get("q") ?? "";
  return pathname.startsWith("/services/json/") || pathname === "/services/session/token" || /^services\/(?:json\/|session\/token$)/.test(q);
}

/** A reverse proxy in front of both systems, as the guide's nginx and Caddy configurations are. */
export interface Proxy {
  port: number;
  mode: ProxyMode;
  close(): Promise<void>;
}

/** Starts the proxy; `https`: it ends TLS, as in front of a site served over HTTPS (`X-Forwarded-Proto: https`, which both sides trust from loopback). */
export async function startProxy(drupalPort: number, nodePort: number, options: { https?: boolean } = {}): Promise<Proxy> {
  const proxy: Proxy = { port: 0, mode: "split", close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    const toNode = proxy.mode === "node" || (proxy.mode === "split" && isServicesPath(req.url ?? "/"));
    const forwardedFor = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const upstream = httpRequest(
      {
        host: "127.0.0.1",
        port: toNode ? nodePort : drupalPort,
        method: req.method,
        path: req.url,
        // The Host the client used: both systems name the session cookie after it.
        headers: { ...req.headers, "x-forwarded-for": forwardedFor, ...(options.https === true ? { "x-forwarded-proto": "https" } : {}) },
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });
  proxy.port = await listening(server);
  proxy.close = () => closing(server);
  return proxy;
}

/**
 * Starts the app beside `site` and the proxy in front of both for a suite (before its tests,
 * stopped after them); the returned object holds them once started.
 */
export function nodeAndProxy(site: () => DrupalSite, options: { https?: boolean } = {}): { node: NodeSide; proxy: Proxy } {
  const both = {} as { node: NodeSide; proxy: Proxy };
  beforeAll(async () => {
    both.node = await startNodeSide(site());
    both.proxy = await startProxy(site().port, both.node.port, options);
  });
  afterAll(async () => {
    await both.proxy?.close();
    await both.node?.close();
  });
  return both;
}

/** What a request answered. */
export interface Answer {
  readonly status: number;
  readonly reason: string;
  readonly headers: Headers;
  readonly text: string;
  json<T = Record<string, unknown>>(): T;
}

/** A client of the proxy with a cookie jar (a browser, or a library that keeps cookies). */
export class Client {
  readonly jar = new CookieJar("127.0.0.1");
  constructor(
    readonly port: number,
    readonly keepCookies = true,
  ) {}

  async request(method: string, path: string, options: { headers?: Record<string, string>; body?: string; cookie?: string } = {}): Promise<Answer> {
    const cookie = options.cookie ?? (this.keepCookies ? this.jar.header() : undefined);
    const response = await fetch(`http://127.0.0.1:${this.port}${path}`, {
      method,
      redirect: "manual",
      headers: { "User-Agent": "side-by-side-test/1.0", ...(cookie === undefined ? {} : { Cookie: cookie }), ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    if (this.keepCookies) this.jar.setAll(response.headers.getSetCookie());
    const text = await response.text();
    return { status: response.status, reason: response.statusText, headers: response.headers, text, json: () => JSON.parse(text) };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("GET", path, { headers });
  }

  postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("POST", path, { headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  }

  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("POST", path, {
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** The value of the session cookie the jar holds (`SESS…`), if any. */
  sessionCookie(): string | undefined {
    return /(?:^|; )S?SESS[0-9a-f]{32}=([^;]+)/.exec(this.jar.header() ?? "")?.[1];
  }
}

/** Whether a Drupal page shows `name` as the logged-in user (its account page's title, and a log-out link). */
export function showsLoggedIn(html: string, name: string): boolean {
  return html.includes(`<title>${name} |`) && html.includes('href="/user/logout"');
}
