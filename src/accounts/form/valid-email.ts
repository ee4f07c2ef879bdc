/**
 * Drupal's `valid_email_address()`: PHP's `filter_var($mail, FILTER_VALIDATE_EMAIL)` (PHP 7.1+),
 * written as a parser rather than PHP's regular expression, which backtracks super-linearly:
 * at most 320 bytes, ASCII only, a dot-atom or quoted local part of at most 64 units, and a host
 * name of letter-led top-level domain or an IPv4/IPv6 literal. Test: test/accounts/valid-email.test.ts
 * compares it with PHP itself.
 */
export function validEmailAddress(mail: string): boolean {
  if (mail.length > 320) return false;
  for (let i = 0; i < mail.length; i++) if (mail.charCodeAt(i) > 0x7f) return false;
  if (!unitsWithinLimits(mail)) return false;
  const at = localPartEnd(mail);
  if (at === -1) return false;
  const domain = mail.slice(at + 1);
  return domain.startsWith("[") ? addressLiteral(domain) : hostName(domain);
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/**
 * PHP's two leading lookaheads: no 255 "units" from the start, and no 65 or more units followed by
 * `@` (a unit: an optional quote, a backslash pair or any other character but `\` and `"`, an
 * optional quote), followed over every way the optional quotes can fall.
 */
function unitsWithinLimits(mail: string): boolean {
  let frontier = new Set([0]);
  for (let units = 1; units <= 255; units++) {
    const next = new Set<number>();
    for (const start of frontier) {
      const starts = mail.charCodeAt(start) === QUOTE ? [start, start + 1] : [start];
      for (const at of starts) {
        const code = mail.charCodeAt(at);
        let end: number;
        if (code === BACKSLASH && at + 1 < mail.length && mail.charCodeAt(at + 1) <= 0x7e) end = at + 2;
        else if (at < mail.length && code !== BACKSLASH && code !== QUOTE) end = at + 1;
        else continue;
        next.add(end);
        if (mail.charCodeAt(end) === QUOTE) next.add(end + 1);
      }
    }
    if (next.size === 0) return true;
    if (units >= 65) for (const end of next) if (mail[end] === "@") return false;
    frontier = next;
  }
  return false;
}

/** An atom character: `[\x21\x23-\x27\x2A\x2B\x2D\x2F-\x39\x3D\x3F\x5E-\x7E]` and, case-insensitively, `A-Z`. */
function isAtext(code: number): boolean {
  return (
    code === 0x21 ||
    (code >= 0x23 && code <= 0x27) ||
    code === 0x2a ||
    code === 0x2b ||
    code === 0x2d ||
    (code >= 0x2f && code <= 0x39) ||
    code === 0x3d ||
    code === 0x3f ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x5e && code <= 0x7e)
  );
}

/** A quoted-string character: `[\x01-\x08\x0B\x0C\x0E-\x1F\x21\x23-\x5B\x5D-\x7F]`. */
function isQtext(code: number): boolean {
  return (
    (code >= 0x01 && code <= 0x08) ||
    code === 0x0b ||
    code === 0x0c ||
    (code >= 0x0e && code <= 0x1f) ||
    code === 0x21 ||
    (code >= 0x23 && code <= 0x5b) ||
    (code >= 0x5d && code <= 0x7f)
  );
}

/** The index of the `@` that ends a well-formed local part (words of atoms or quoted strings joined by dots), or -1. */
function localPartEnd(mail: string): number {
  let i = 0;
  for (;;) {
    if (mail.charCodeAt(i) === QUOTE) {
      i += 1;
      for (;;) {
        const code = mail.charCodeAt(i);
        if (code === QUOTE) break;
        if (code === BACKSLASH && i + 1 < mail.length && mail.charCodeAt(i + 1) <= 0x7f) i += 2;
        else if (isQtext(code)) i += 1;
        else return -1;
      }
      i += 1;
    } else {
      const start = i;
      while (i < mail.length && isAtext(mail.charCodeAt(i))) i += 1;
      if (i === start) return -1;
    }
    if (mail[i] === "@") return i;
    if (mail[i] !== ".") return -1;
    i += 1;
  }
}

function isAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Runs of letters and digits joined by runs of hyphens, neither end a hyphen. */
function hyphenatedAlnum(label: string): boolean {
  if (label === "" || label.startsWith("-") || label.endsWith("-")) return false;
  for (let i = 0; i < label.length; i++) {
    const code = label.charCodeAt(i);
    if (!isAlnum(code) && code !== 0x2d) return false;
  }
  return true;
}

/** Labels and a top-level domain that starts with a letter; no run of 64 non-dot characters anywhere. */
function hostName(domain: string): boolean {
  let run = 0;
  for (let i = 0; i < domain.length; i++) {
    const char = domain[i];
    if (char === "\n") return false;
    run = char === "." ? 0 : run + 1;
    if (run >= 64) return false;
  }
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  const top = labels.pop()!;
  return labels.every(hyphenatedAlnum) && hyphenatedAlnum(top) && isLetter(top.charCodeAt(0));
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** `[a-f0-9]{1,4}` groups joined by single colons: the count, or -1; `""` is none. */
function hexGroups(text: string): number {
  if (text === "") return 0;
  const groups = text.split(":");
  for (const group of groups) {
    if (group.length < 1 || group.length > 4) return -1;
    for (let i = 0; i < group.length; i++) if (!isHex(group.charCodeAt(i))) return -1;
  }
  return groups.length;
}

/** `[1.2.3.4]`'s dotted quad: decimal octets to 255, no leading zero. */
function ipv4(text: string): boolean {
  const octets = text.split(".");
  return octets.length === 4 && octets.every((octet) => /^(?:0|[1-9]\d{0,2})$/.test(octet) && Number(octet) <= 255);
}

/** An IPv6 address of 8 groups, or compressed (one `::`) with at most `maxGroups` groups. */
function ipv6(text: string, maxGroups: number, full: number): boolean {
  const split = text.indexOf("::");
  if (split === -1) return hexGroups(text) === full;
  if (text.indexOf("::", split + 1) !== -1) return false;
  const left = hexGroups(text.slice(0, split));
  const right = hexGroups(text.slice(split + 2));
  return left !== -1 && right !== -1 && left + right <= maxGroups;
}

/** A bracketed address literal: `[IPv6:…]`, `[IPv6:…:1.2.3.4]` or `[1.2.3.4]` (`IPv6:` in any case). */
function addressLiteral(domain: string): boolean {
  if (!domain.endsWith("]") || domain.length < 2) return false;
  const inner = domain.slice(1, -1);
  if (!inner.toLowerCase().startsWith("ipv6:")) return ipv4(inner);
  const address = inner.slice(5);
  if (ipv6(address, 6, 8)) return true;
  // An IPv4 tail: six groups each ending in a colon, or compressed with at most four groups.
  const dot = address.indexOf(".");
  if (dot === -1) return false;
  const colon = address.lastIndexOf(":", dot);
  if (colon === -1 || !ipv4(address.slice(colon + 1))) return false;
  const head = address.slice(0, colon + 1);
  if (!head.includes("::")) return head.endsWith(":") && hexGroups(head.slice(0, -1)) === 6;
  // `(h16(:h16){0,3})?::(h16(:h16){0,3}:)?`: the right side, if any, ends with its own colon.
  const split = head.indexOf("::");
  const left = hexGroups(head.slice(0, split));
  const rest = head.slice(split + 2);
  const right = rest === "" ? 0 : rest.endsWith(":") && rest !== ":" ? hexGroups(rest.slice(0, -1)) : -1;
  return left !== -1 && right !== -1 && left + right <= 4;
}
