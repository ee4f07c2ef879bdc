const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#039;" };

/** Drupal's `check_plain()`: PHP `htmlspecialchars(ENT_QUOTES)`, used where Drupal's `t()` has an `@name` placeholder. */
export function checkPlain(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** Drupal's `%name` placeholder: `check_plain()` wrapped in `<em class="placeholder">`. */
export function placeholder(text: string): string {
  return `<em class="placeholder">${checkPlain(text)}</em>`;
}
