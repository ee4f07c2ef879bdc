import { trimSlashes } from "./path.js";

/**
 * Drupal's `request_path()` for sites without clean URLs: on one of the `honoured` paths, a
 * `q` parameter is the request's path, its slashes trimmed, and the rest of the query string
 * stays. Returns the request target rewritten (`/services/json/user/login.json?x=1`), or
 * `undefined` when the target is not on such a path or has no `q` (a search box's `?q=` on
 * `/players` is the app's).
 *
 * @param target - The request target: the path and the query string, as on the request line.
 */
export function drupalQueryTarget(target: string, honoured: ReadonlySet<string>): string | undefined {
  const mark = target.indexOf("?");
  if (mark === -1 || !honoured.has(target.slice(0, mark))) return undefined;
  const query = new URLSearchParams(target.slice(mark + 1));
  // The last q, as PHP's $_GET (and so Drupal's request_path()) reads a repeated one.
  const q = query.getAll("q").at(-1);
  if (q === undefined) return undefined;
  query.delete("q");
  // Re-encode each segment: q arrives decoded, and a raw "?" or "#" must not start a new URL part.
  const path = trimSlashes(q).split("/").map(encodeURIComponent).join("/");
  const rest = query.toString();
  return `/${path}${rest === "" ? "" : `?${rest}`}`;
}
