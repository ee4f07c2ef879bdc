import { readFileSync } from "node:fs";
import { Router, type Request, type Response } from "express";

// Everything the page needs comes from this app: nothing from a CDN, no inline script or style.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const FILES = [
  ["/", "index.html", "text/html; charset=utf-8"],
  ["/app.js", "app.js", "text/javascript; charset=utf-8"],
  ["/fetch-json.js", "fetch-json.js", "text/javascript; charset=utf-8"],
  ["/message.js", "message.js", "text/javascript; charset=utf-8"],
  ["/style.css", "style.css", "text/css; charset=utf-8"],
  // Where a mailed one-time login link leads (./accounts-env.ts): choose a new password.
  ["/reset.html", "reset.html", "text/html; charset=utf-8"],
  ["/reset.js", "reset.js", "text/javascript; charset=utf-8"],
] as const;

/** The demo page's files: path, body (read once) and headers, for any framework to serve. */
export function pageFiles(): Array<{ path: string; body: Buffer; headers: Record<string, string> }> {
  return FILES.map(([path, file, type]) => ({
    path,
    body: readFileSync(new URL(`./public/${file}`, import.meta.url)),
    headers: {
      "Content-Type": type,
      "Content-Security-Policy": CSP,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Cache-Control": "no-cache",
    },
  }));
}

/**
 * The demo page: a login form, then the signed-in user and the sports tables, fetched from
 * the protected routes with the session cookie (`X-CSRF-Token` on its POSTs). Static files read once.
 */
export function demoPage(): Router {
  const router = Router();
  for (const { path, body, headers } of pageFiles()) {
    router.get(path, (_req: Request, res: Response) => {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      res.end(body);
    });
  }
  return router;
}
