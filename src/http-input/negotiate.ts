import { SessionAuthError } from "../errors.js";

/** The one response format this package writes, and its formatter's MIME type. */
const JSON_FORMAT = { name: "json", mime: ["application", "json"] } as const;

/**
 * Picks the response format as Services' REST server does (`RESTServer::getResponseFormatter`,
 * `ServicesContentTypeNegotiator.inc`): a URL suffix names it outright (only `json` is enabled); without one, an
 * `Accept` header is matched as Services' Mimeparse `best_match` matches it over the enabled
 * formatters, and a missing or empty `Accept` means the default, `json`.
 *
 * Where Mimeparse throws (a media range without a subtype, such as `Accept: application`,
 * `;;;/`, or the empty element a repeated header leaves in `", application/xml"`), Services
 * answered `500 … malformed mime type`. Here every `Accept` gets a deliberate answer instead,
 * as RFC 9110 asks of a recipient of a list: empty elements are skipped, a range that cannot
 * be read matches nothing (it names no format), a header with nothing but empty elements is an
 * empty header (the default, `json`), and one that admits no JSON is Services' own 406.
 *
 * @throws SessionAuthError `ERR_NOT_ACCEPTABLE` when nothing matches (Services' 406 with an
 * empty body).
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

/**
 * Whether an `Accept` header admits a MIME type, by Services' copy of Mimeparse (0.1.2):
 * ranges split on `,`, parameters on `;`, exact and case-sensitive type and subtype, `*`
 * as a wildcard on either side. With one candidate the `q` values cannot decide anything:
 * Mimeparse resets any `q` it cannot use (0 included) to 1, so every matching range counts.
 * One pass over the header; `"empty"` when it holds no element but empty ones.
 */
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

/**
 * Mimeparse's `parse_mime_type()`: the type and subtype of one media range, parameters
 * ignored; `"empty"` for an element of nothing but spaces, `"unreadable"` where Mimeparse
 * throws.
 */
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
