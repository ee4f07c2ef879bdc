const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#039;" };

/** Drupal's `check_plain()`: PHP `htmlspecialchars(ENT_QUOTES)`, used where Drupal's `t()` has an `@name` placeholder. */
export function checkPlain(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** Drupal's `%name` placeholder: `check_plain()` wrapped in `<em class="placeholder">`. */
export function placeholder(text: string): string {
  return `<em class="placeholder">${checkPlain(text)}</em>`;
}

// C's isspace(): what PHP's strip_tags() looks for after a `<` that is text.
const C_SPACE = " \t\n\v\f\r";

/** PHP's `strip_tags()` as Services runs it on a status line, in one pass. */
export function stripTags(text: string): string {
  let out = "";
  let kept = 0;
  let depth = 0;
  let quote = "";
  let inTag = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (!inTag) {
      if (char !== "<" || C_SPACE.includes(text[i + 1] ?? "x")) continue;
      out += text.slice(kept, i);
      inTag = true;
    } else if (char === ">" && depth > 0) {
      depth -= 1;
    } else if (quote !== "") {
      if (char === quote) quote = "";
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === "<") {
      depth += 1;
    } else if (char === ">") {
      inTag = false;
      kept = i + 1;
    }
  }
  return inTag ? out : out + text.slice(kept);
}
