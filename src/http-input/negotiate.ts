import { SessionAuthError } from "../errors.js";

/** The one response format this package writes, and its formatter's MIME type. */
const JSON_FORMAT = { name: "json", mime: ["application", "json"] } as const;

/**
 * The response format as `RESTServer::getResponseFormatter` picks it: a suffix names it (only `json`),
 * else `Accept` by Services' Mimeparse `best_match`, none meaning `json`. Where Mimeparse threw (a
 * 500), unreadable ranges match nothing and empty elements are skipped (docs/differences-from-drupal.md).
 * @throws SessionAuthError `ERR_NOT_ACCEPTABLE` when nothing matches (Services' 406, empty body).
 */
export function negotiateFormat(suffix: string | undefined, accept: string | undefined): "json" {
  if (suffix !== undefined) {
    if (suffix === JSON_FORMAT.name) return "json";
    throw new SessionAuthError("ERR_NOT_ACCEPTABLE");
  }
  // PHP's empty(): a missing header, "" and "0" all fall back to the default format.
  if (accept === undefined || accept === "" || accept === "0") return "json";
  const verdict = acceptsMime(accept, JSON_FORMAT.mime);
  if (verdict !== "refused") return "json";
  throw new SessionAuthError("ERR_NOT_ACCEPTABLE");
}

/** Whether `Accept` admits a MIME type by Services' Mimeparse 0.1.2, in one pass; `"empty"` for only empty elements. */
function acceptsMime(header: string, [type, subtype]: readonly [string, string]): "accepted" | "refused" | "empty" {
  let verdict: "accepted" | "refused" | "empty" = "empty";
  for (const element of header.split(",")) {
    const range = mediaRange(element);
    if (range === "empty") continue;
    if (verdict === "empty") verdict = "refused";
    if (range === "unreadable") continue;
    const [rangeType, rangeSubtype] = range;
    const typeMatches = rangeType === type || rangeType === "*";
    const subtypeMatches = rangeSubtype === subtype || rangeSubtype === "*";
    if (typeMatches && subtypeMatches) verdict = "accepted";
  }
  return verdict;
}

/** Mimeparse's `parse_mime_type()` for one range: type and subtype, `"empty"`, or `"unreadable"` where Mimeparse throws. */
function mediaRange(element: string): [string, string] | "empty" | "unreadable" {
  if (phpTrim(element) === "") return "empty";
  let full = phpTrim(element.split(";", 1)[0]!);
  // The Java URLConnection sends a bare "*"; Mimeparse reads it as */*.
  if (full === "*") full = "*/*";
  const [type, subtype] = full.split("/", 2) as [string, string | undefined];
  // PHP's `if (!$subtype)`: a missing subtype, "" and "0" are all malformed.
  if (subtype === undefined || subtype === "" || subtype === "0") return "unreadable";
  return [phpTrim(type), phpTrim(subtype)];
}

/** PHP's `trim()`: only space, tab, CR, LF, NUL and vertical tab, not every Unicode space. */
function phpTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PHP_SPACE.has(text[start]!)) start += 1;
  while (end > start && PHP_SPACE.has(text[end - 1]!)) end -= 1;
  return text.slice(start, end);
}

const PHP_SPACE: ReadonlySet<string> = new Set([" ", "\t", "\n", "\r", "\0", "\x0B"]);
