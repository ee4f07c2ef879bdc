import { phpWordwrap } from "./php-wordwrap.js";

/** `_drupal_html_to_text_clean()`: an indentation's markers other than `>` become spaces. */
function cleanIndent(indent: string): string {
  return indent.replace(/[^>]/g, " ");
}

/**
 * Removes the spaces that end a line (`/(?(?<!^--) +\n|  +\n)/m`), so existing breaks stay hard,
 * but keeps the one after a signature marker `--` at the start of a line (RFC 3676, 4.3).
 */
function hardenBreaks(text: string): string {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    let end = line.length;
    while (end > 0 && line.charCodeAt(end - 1) === 0x20) end -= 1;
    const spaces = line.length - end;
    if (spaces === 0) continue;
    // After a leading `--`, one space is the marker's own: only two or more go.
    if (end === 2 && line.startsWith("--") && spaces < 2) continue;
    lines[i] = line.slice(0, end);
  }
  return lines.join("\n");
}

/** `_drupal_wrap_mail_line()`: soft breaks at 77 bytes less the indent, hard cuts at 996. */
function wrapLine(line: string, soft: boolean, indentLength: number): string {
  const brk = soft ? " \n" : "\n";
  return phpWordwrap(phpWordwrap(line, 77 - indentLength, brk, false), 996 - indentLength, brk, true);
}

/**
 * Drupal's `drupal_wrap_mail()`: format=flowed soft wrapping (RFC 3676, `delsp=yes`) with LF line
 * endings, space-stuffing lines that begin with `>`, a space or `From`, and an optional indent.
 */
export function drupalWrapMail(input: string, indent = ""): string {
  let text = input.replaceAll("\r", "");
  const clean = cleanIndent(indent);
  const soft = !clean.includes(" ");
  const indentLength = Buffer.byteLength(indent, "utf8");
  if (text.includes("\n")) {
    text = hardenBreaks(text)
      .split("\n")
      .map((line) => wrapLine(line, soft, indentLength))
      .join("\n");
  } else {
    text = wrapLine(text, soft, indentLength);
  }
  // Lines of nothing but spaces become empty; special lines are space-stuffed.
  text = text
    .split("\n")
    .map((line, index, all) => (index < all.length - 1 && /^ +$/.test(line) ? "" : line))
    .map((line) => (line.startsWith(">") || line.startsWith(" ") || line.startsWith("From") ? ` ${line}` : line))
    .join("\n");
  if (clean === "") return indent + text;
  // PCRE's multiline `^`: every line but an empty one after a final newline.
  const lines = text.split("\n");
  return indent + lines.map((line, index) => (index === 0 || (index === lines.length - 1 && line === "") ? line : clean + line)).join("\n");
}

// The HTML 4.01 entities html_entity_decode() knows besides numeric ones: the Latin-1 set and the specials.
const LATIN1 =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml".split(
    " ",
  );
const NAMED: ReadonlyMap<string, number> = new Map([
  ...LATIN1.map((name, index): [string, number] => [name, 160 + index]),
  ["quot", 34],
  ["amp", 38],
  ["lt", 60],
  ["gt", 62],
  ["OElig", 338],
  ["oelig", 339],
  ["Scaron", 352],
  ["scaron", 353],
  ["Yuml", 376],
  ["circ", 710],
  ["tilde", 732],
  ["ensp", 8194],
  ["emsp", 8195],
  ["thinsp", 8201],
  ["zwnj", 8204],
  ["zwj", 8205],
  ["lrm", 8206],
  ["rlm", 8207],
  ["ndash", 8211],
  ["mdash", 8212],
  ["lsquo", 8216],
  ["rsquo", 8217],
  ["sbquo", 8218],
  ["ldquo", 8220],
  ["rdquo", 8221],
  ["bdquo", 8222],
  ["dagger", 8224],
  ["Dagger", 8225],
  ["permil", 8240],
  ["lsaquo", 8249],
  ["rsaquo", 8250],
  ["euro", 8364],
  ["hellip", 8230],
  ["bull", 8226],
  ["trade", 8482],
]);

/** Drupal's `decode_entities()` (`html_entity_decode(ENT_QUOTES)`): named HTML 4 entities and numeric ones. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[\da-f]{1,6}|#\d{1,7}|[a-z][\da-z]{1,7});/gi, (whole, body: string) => {
    if (body.startsWith("#")) {
      const code = body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    const code = NAMED.get(body);
    return code === undefined ? whole : String.fromCodePoint(code);
  });
}

/** PHP's `trim()`: spaces, tabs, line ends, NUL and vertical tab at both ends. */
export function phpTrim(text: string): string {
  let start = 0;
  let end = text.length;
  const blank = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x00 || code === 0x0b;
  while (start < end && blank(text.charCodeAt(start))) start += 1;
  while (end > start && blank(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

/**
 * Drupal's `drupal_html_to_text()` for a mail body: exact for plain text (Drupal's templates and
 * tokens), where it decodes entities, trims and wraps; markup an admin put in a template is reduced
 * to its text, `<br>` and paragraphs kept as line breaks (docs/differences-from-drupal.md).
 */
export function htmlToText(html: string): string {
  const withoutNul = html.replaceAll("\0", "");
  const text = withoutNul.includes("<")
    ? withoutNul
        .replace(/<br\s*\/?>/gi, "\n")
        .replace(/<\/p\s*>/gi, "\n\n")
        .replace(/<\/?[a-z][^<>]*>/gi, "")
    : withoutNul;
  const chunk = phpTrim(decodeEntities(text));
  return chunk === "" ? "" : `${drupalWrapMail(chunk)}\n`;
}

/** `DefaultMailSystem::format()`: the body parts joined by a blank line, made plain text, wrapped. */
export function formatMailBody(parts: readonly string[]): string {
  return drupalWrapMail(htmlToText(parts.join("\n\n")));
}
