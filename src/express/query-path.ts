import type { NextFunction, Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { parseOptions } from "../core/validate.js";
import { trimSlashes } from "../services/path.js";

const optionsSchema = z.strictObject({ paths: z.array(z.string().startsWith("/")).readonly().optional() });

/**
 * Options of {@link drupalQueryPath}.
 *
 * @example
 * ```ts
 * app.use(drupalQueryPath({ paths: ["/", "/index.php", "/drupal/index.php"] }));
 * ```
 */
export interface DrupalQueryPathOptions {
  /**
   * The request paths on which `?q=` is honoured. Elsewhere `q` is left to the app (a
   * search box's `?q=` on `/players` must not re-route the request).
   * @default ["/", "/index.php"]
   */
  paths?: readonly string[];
}

/**
 * Routes `/?q=services/json/user/login.json` as Drupal does for sites without clean URLs
 * (`request_path()`): the `q` parameter becomes the path, its slashes trimmed, and the rest
 * of the query string is kept. Clients such as jDrupal and DrupalGap call every Services
 * URL this way. Mount it on the app before the routes.
 *
 * @example
 * ```ts
 * app.use(drupalQueryPath());
 * app.use("/services/json", auth.router());
 * ```
 * @throws TypeError when an option is invalid.
 */
export function drupalQueryPath(options: DrupalQueryPathOptions = {}): RequestHandler {
  const paths = new Set(parseOptions(optionsSchema, options, "drupalQueryPath").paths ?? ["/", "/index.php"]);
  return function drupalQueryPath(req: Request, _res: Response, next: NextFunction) {
    const mark = req.url.indexOf("?");
    if (mark === -1 || !paths.has(req.url.slice(0, mark))) return next();
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
