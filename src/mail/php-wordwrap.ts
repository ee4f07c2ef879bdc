/**
 * PHP's `wordwrap()` over the UTF-8 bytes of a text, as `drupal_wrap_mail()` calls it: widths count
 * bytes, breaks fall on ASCII spaces (a multi-byte character is never split, as none of its bytes
 * is a space or the break), and with `cut` a word longer than the width is broken too.
 */
export function phpWordwrap(text: string, width: number, breakText: string, cut: boolean): string {
  if (text === "") return "";
  // One character per byte: PHP counts and copies bytes.
  const bytes = Buffer.from(text, "utf8").toString("latin1");
  const brk = Buffer.from(breakText, "utf8").toString("latin1");
  const wrapped = brk.length === 1 && !cut ? singleCharacterBreak(bytes, width, brk) : anyBreak(bytes, width, brk, cut);
  return Buffer.from(wrapped, "latin1").toString("utf8");
}

/** PHP's special case for a one-byte break without cutting: spaces are replaced in place. */
function singleCharacterBreak(text: string, width: number, brk: string): string {
  const out = text.split("");
  let lastStart = 0;
  let lastSpace = 0;
  for (let current = 0; current < text.length; current++) {
    if (text[current] === brk) {
      lastStart = lastSpace = current + 1;
    } else if (text[current] === " ") {
      if (current - lastStart >= width) {
        out[current] = brk;
        lastStart = current + 1;
      }
      lastSpace = current;
    } else if (current - lastStart >= width && lastStart !== lastSpace) {
      out[lastSpace] = brk;
      lastStart = lastSpace + 1;
    }
  }
  return out.join("");
}

/** PHP's general case: a multi-byte break or a forced cut, copied into a new text. */
function anyBreak(text: string, width: number, brk: string, cut: boolean): string {
  let out = "";
  let lastStart = 0;
  let lastSpace = 0;
  let current = 0;
  for (; current < text.length; current++) {
    if (text[current] === brk[0] && current + brk.length < text.length && text.startsWith(brk, current)) {
      out += text.slice(lastStart, current + brk.length);
      current += brk.length - 1;
      lastStart = lastSpace = current + 1;
    } else if (text[current] === " ") {
      if (current - lastStart >= width) {
        out += text.slice(lastStart, current) + brk;
        lastStart = current + 1;
      }
      lastSpace = current;
    } else if (current - lastStart >= width && cut && lastStart >= lastSpace) {
      out += text.slice(lastStart, current) + brk;
      lastStart = lastSpace = current;
    } else if (current - lastStart >= width && lastStart < lastSpace) {
      out += text.slice(lastStart, lastSpace) + brk;
      lastStart = lastSpace = lastSpace + 1;
    }
  }
  if (lastStart !== current) out += text.slice(lastStart, current);
  return out;
}
