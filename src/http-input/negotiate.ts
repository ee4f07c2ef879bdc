import { SessionAuthError } from "../errors.js";

/** The one response format this package writes, and its formatter's MIME type. */
const JSON_FORMAT = { name: "json", mime: ["application", "json"] } as const;

/**
 * Picks the response format as Services' REST server does (`RESTServer::getResponseFormatter`,
 * `ServicesContentTypeNegotiator.inc`): a URL suffix names it outright (only `json` is enabled); without one, an
 * `Accept` header is matched with Mimeparse's `best_match` over the enabled formatters, and
 * a missing or empty `Accept` means the default, `json`.
 *
 * @throws SessionAuthError `ERR_NOT_ACCEPTABLE` when nothing matches (Services' 406 with an
 * empty body); `ERR_MALFORMED_ACCEPT` for a media range without a subtype, which Mimeparse
 * throws on and Services answers with a 500.
 */
export function negotiateFormat(suffix: string | undefined, accept: string | undefined): "json" {
  if (suffix !== undefined) {
    if (suffix === JSON_FORMAT.name) return "json";
    throw new SessionAuthError("ERR_NOT_ACCEPTABLE");
  }
  // PHP's empty(): a missing header, "" and "0" all fall back to the default format.
  if (accept === undefined || accept === "" || accept === "0") return "json";
  if (acceptsMime(accept, JSON_FORMAT.mime)) return "json";
  throw new SessionAuthError("ERR_NOT_ACCEPTABLE");
}

/**
 * Whether an `Accept` header admits a MIME type, by Services' copy of Mimeparse (0.1.2):
 * ranges split on `,`, parameters on `;`, exact and case-sensitive type and subtype, `*`
 * as a wildcard on either side. With one candidate the `q` values cannot decide anything:
 * Mimeparse resets any `q` it cannot use (0 included) to 1, so every matching range counts.
 * Every range is parsed, in one pass over the header: a malformed one anywhere is an error.
 */
function acceptsMime(header: string, [type, subtype]: readonly [string, string]): boolean {
  let accepted = false;
  for (const range of header.split(",")) {
    const [rangeType, rangeSubtype] = mediaRange(range);
    const typeMatches = rangeType === type || rangeType === "*";
    const subtypeMatches = rangeSubtype === subtype || rangeSubtype === "*";
    if (typeMatches && subtypeMatches) accepted = true;
  }
  return accepted;
}

/** Mimeparse's `parse_mime_type()`: the type and subtype of one media range, parameters ignored. */
function mediaRange(range: string): [string, string] {
  let full = phpTrim(range.split(";", 1)[0]!);
  // The Java URLConnection sends a bare "*"; Mimeparse reads it as */*.
  if (full === "*") full = "*/*";
  const [type, subtype] = full.split("/", 2) as [string, string | undefined];
  // PHP's `if (!$subtype)`: a missing subtype, "" and "0" are all malformed.
  if (subtype === undefined || subtype === "" || subtype === "0") throw new SessionAuthError("ERR_MALFORMED_ACCEPT");
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
