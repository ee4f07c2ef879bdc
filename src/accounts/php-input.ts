/** PHP's `max_input_vars`: the pairs `parse_str()` reads at most. */
const MAX_INPUT_VARS = 1000;
/** PHP's `max_input_nesting_level`. */
const MAX_NESTING = 64;

/** An array as PHP builds one from input: keys in order, no prototype, so `__proto__` is a key like any other. */
export type PhpInputArray = Record<string, unknown>;

function phpArray(): PhpInputArray {
  return Object.create(null) as PhpInputArray;
}

/** The next integer key of a PHP array (`$a[] = …`): one past the highest integer key, 0 when none. */
function nextIndex(array: PhpInputArray): string {
  let next = 0;
  for (const key of Object.keys(array)) if (/^(?:0|[1-9]\d{0,15})$/.test(key)) next = Math.max(next, Number(key) + 1);
  return String(next);
}

/** A variable name as `php_register_variable_ex()` splits it: the base, then each `[…]` key (`""` for `[]`); `undefined` when PHP drops it. */
function splitName(name: string): string[] | undefined {
  const open = name.indexOf("[");
  const base = open === -1 ? name : name.slice(0, open);
  if (base === "") return undefined;
  const parts = [base.replace(/[ .]/g, "_")];
  if (open === -1) return parts;
  let i = open;
  while (i < name.length && name[i] === "[") {
    const close = name.indexOf("]", i + 1);
    // An unclosed bracket: PHP keeps the rest in the base name, `[` as `_`.
    if (close === -1) return i === open ? [`${base.replace(/[ .]/g, "_")}_${name.slice(open + 1)}`] : parts;
    parts.push(name.slice(i + 1, close));
    if (parts.length > MAX_NESTING) return undefined;
    i = close + 1;
  }
  return parts;
}

/**
 * A query string or form body as PHP's `parse_str()` fills `$_GET`/`$_POST`: `a[b][]=1` nests,
 * the last of a repeated name wins, at most 1000 pairs; linear in the input.
 */
export function parsePhpInput(text: string): PhpInputArray {
  const root = phpArray();
  let pairs = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++pairs > MAX_INPUT_VARS) break;
    const parts = splitName(name);
    if (parts === undefined) continue;
    let target = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const key = parts[i] === "" ? nextIndex(target) : parts[i]!;
      const child = target[key];
      if (typeof child === "object" && child !== null) target = child as PhpInputArray;
      else target = target[key] = phpArray();
    }
    const last = parts[parts.length - 1]!;
    target[last === "" ? nextIndex(target) : last] = value;
  }
  return root;
}
