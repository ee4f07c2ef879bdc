/** What the tokens of a user mail stand for: the account's and the site's values, and the links made for this mail. */
export interface MailTokens {
  readonly user: { readonly uid: string; readonly name: string; readonly mail: string };
  readonly site: { readonly name: string; readonly slogan: string; readonly mail: string };
  /** A Drupal path as an absolute URL (`url($path, array('absolute' => TRUE))`). */
  readonly url: (path: string) => string;
  /** `[user:one-time-login-url]` and `[user:cancel-url]`, made for this mail (`user_mail_tokens()`). */
  readonly oneTimeLoginUrl: () => string;
  readonly cancelUrl: () => string;
}

/** The value of one `[type:name]` token, or `undefined` for a token Drupal's core would not know here. */
function tokenValue(type: string, name: string, data: MailTokens): string | undefined {
  if (type === "user") {
    switch (name) {
      case "uid":
        return data.user.uid;
      case "name":
        // format_username(): the name, or the site's name for anonymous when empty.
        return data.user.name === "" ? "Anonymous" : data.user.name;
      case "mail":
        return data.user.mail;
      case "url":
        return data.url(`user/${data.user.uid}`);
      case "edit-url":
        return data.url(`user/${data.user.uid}/edit`);
      case "one-time-login-url":
        return data.oneTimeLoginUrl();
      case "cancel-url":
        return data.cancelUrl();
    }
    return undefined;
  }
  if (type === "site") {
    switch (name) {
      case "name":
        return data.site.name;
      case "slogan":
        return data.site.slogan;
      case "mail":
        return data.site.mail;
      case "url":
        return data.url("");
      case "url-brief":
        return data
          .url("")
          .replace(/^https?:\/\//, "")
          .replace(/\/$/, "");
      case "login-url":
        return data.url("user");
    }
  }
  return undefined;
}

/**
 * Drupal's `token_replace()` as `_user_mail_text()` calls it (unsanitized, `clear`): each
 * `[type:name]` (no whitespace, `:` or brackets in the type; no brackets in the name) is replaced
 * in one pass; tokens without a value here are removed, as Drupal clears tokens it cannot fill.
 */
export function replaceTokens(text: string, data: MailTokens): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("[", i);
    if (open === -1) break;
    const token = scanToken(text, open);
    if (token === undefined) {
      out += text.slice(i, open + 1);
      i = open + 1;
      continue;
    }
    out += text.slice(i, open) + (tokenValue(token.type, token.name, data) ?? "");
    i = token.end;
  }
  return out + text.slice(i);
}

/** The token starting at `open` (`[type:name]`), or `undefined` when the text there is none. */
function scanToken(text: string, open: number): { type: string; name: string; end: number } | undefined {
  let j = open + 1;
  while (j < text.length && !/[\s[\]:]/.test(text[j]!)) j += 1;
  if (text[j] !== ":") return undefined;
  const type = text.slice(open + 1, j);
  let k = j + 1;
  while (k < text.length && text[k] !== "[" && text[k] !== "]") k += 1;
  if (text[k] !== "]") return undefined;
  return { type, name: text.slice(j + 1, k), end: k + 1 };
}
