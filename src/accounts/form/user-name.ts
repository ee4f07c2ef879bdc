import { placeholder } from "../../wire/html.js";

/** `USERNAME_MAX_LENGTH`. */
export const USERNAME_MAX_LENGTH = 60;

/** ASCII a name may hold besides letters and digits (`user_validate_name()`); every non-ASCII character passes this first test. */
const NAME_PUNCTUATION = new Set([" ", "@", "+", "_", ".", "'", "-"]);

/** Characters `user_validate_name()` refuses even outside ASCII: controls, odd spaces, bidi overrides, full-width Latin, replacement marks. */
function invisibleOrConfusable(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x80 && code <= 0xa0) ||
    code === 0xad ||
    (code >= 0x2000 && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202f) ||
    (code >= 0x205f && code <= 0x206f) ||
    code === 0xfeff ||
    (code >= 0xff01 && code <= 0xff60) ||
    (code >= 0xfff9 && code <= 0xfffd)
  );
}

function isAsciiAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Drupal's `user_validate_name()`: the message for a name it refuses, or `undefined`. Length counts characters, as `drupal_strlen()`. */
export function userNameError(name: string): string | undefined {
  // PHP's `!$name`: "" and "0" are no name.
  if (name === "" || name === "0") return "You must enter a username.";
  if (name.startsWith(" ")) return "The username cannot begin with a space.";
  if (name.endsWith(" ")) return "The username cannot end with a space.";
  if (name.includes("  ")) return "The username cannot contain multiple spaces in a row.";
  for (const char of name) {
    const code = char.codePointAt(0)!;
    if (code < 0x80 && !isAsciiAlnum(code) && !NAME_PUNCTUATION.has(char)) return "The username contains an illegal character.";
  }
  for (const char of name) if (invisibleOrConfusable(char.codePointAt(0)!)) return "The username contains an illegal character.";
  const length = [...name].length;
  if (length > USERNAME_MAX_LENGTH)
    return `The username ${placeholder(name)} is too long: it must be ${placeholder(String(USERNAME_MAX_LENGTH))} characters or less.`;
  return undefined;
}
