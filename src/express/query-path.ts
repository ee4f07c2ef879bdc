import type { Request } from "express";
import { drupalQueryTarget } from "../http-input/query-path.js";

/**
 * Routes `/?q=services/json/user/login.json` as Drupal does for sites without clean URLs
 * (`request_path()`): on the given paths, the `q` parameter becomes the path, its slashes
 * trimmed, and the rest of the query string is kept, so the endpoint and the app's own routes
 * behind it see the path Drupal would. Clients such as jDrupal and DrupalGap call every
 * Services URL this way. Elsewhere `q` is left to the app (a search box's `?q=` on `/players`
 * must not re-route the request).
 */
export function queryPathRewriter(paths: readonly string[]): (req: Pick<Request, "url">) => void {
  const honoured = new Set(paths);
  return function drupalQueryPath(req) {
    const rewritten = drupalQueryTarget(req.url, honoured);
    if (rewritten !== undefined) req.url = rewritten;
  };
}
