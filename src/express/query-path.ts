import type { NextFunction, Request, RequestHandler, Response } from "express";
import { trimSlashes } from "../http-input/path.js";

/**
 * Routes `/?q=services/json/user/login.json` as Drupal does for sites without clean URLs
 * (`request_path()`): on the given paths, the `q` parameter becomes the path, its slashes
 * trimmed, and the rest of the query string is kept, so the endpoint and the app's own routes
 * behind it see the path Drupal would. Clients such as jDrupal and DrupalGap call every
 * Services URL this way. Elsewhere `q` is left to the app (a search box's `?q=` on `/players`
 * must not re-route the request).
 */
export function queryPathRewriter(paths: readonly string[]): RequestHandler {
  const honoured = new Set(paths);
  return function drupalQueryPath(req: Request, _res: Response, next: NextFunction) {
    const mark = req.url.indexOf("?");
    if (mark === -1 || !honoured.has(req.url.slice(0, mark))) return next();
    const query = new URLSearchParams(req.url.slice(mark + 1));
    const q = query.get("q");
    if (q === null) return next();
    query.delete("q");
    const path = trimSlashes(q);
    // Re-encode each segment: q arrives decoded, and a raw "?" or "#" must not start a new URL part.
    const encoded = path.split("/").map(encodeURIComponent).join("/");
    const rest = query.toString();
    req.url = `/${encoded}${rest === "" ? "" : `?${rest}`}`;
    next();
  };
}
