import { sessionCookieFor } from "../cookie/session-cookie.js";
import { oneOf, parse, positiveInteger, UsageError, type Io } from "./usage.js";

/** `session-name <public URL>`: the cookie a client of that URL gets, to compare with Drupal's `Set-Cookie` before the cut-over. */
export function sessionNameCommand(args: readonly string[], io: Io): void {
  const { values, positionals } = parse(
    args,
    {
      "cookie-domain": { type: "string" },
      "base-url": { type: "string" },
      "cookie-secure": { type: "string" },
      "same-site": { type: "string" },
      "absolute-timeout": { type: "string" },
      json: { type: "boolean" },
    },
    1,
  );
  const url = positionals[0];
  if (url === undefined) throw new UsageError("session-name: which public URL? (e.g. https://api.example.com/)");
  if (!URL.canParse(url)) throw new UsageError(`session-name: ${url} is not an absolute URL`);
  let cookie;
  try {
    cookie = sessionCookieFor(url, {
      cookieDomain: values["cookie-domain"],
      baseUrl: values["base-url"],
      cookieSecure: oneOf(values["cookie-secure"], "cookie-secure", ["auto", "always"]),
      sameSite: oneOf(values["same-site"], "same-site", ["lax", "strict", "none"]),
      absoluteTimeout: positiveInteger(values["absolute-timeout"], "absolute-timeout"),
    });
  } catch (error) {
    // The options' own checks (a bad domain, http: with SameSite=None): arguments, not failures.
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
  if (values.json === true) {
    io.stdout.write(
      `${JSON.stringify({ ...cookie, alsoDeletedAt: cookie.alsoDeletedAt.map((domain) => domain ?? null), domain: cookie.domain ?? null }, null, 2)}\n`,
    );
    return;
  }
  const place = (domain: string | undefined) => domain ?? "(none: host-only)";
  const lines: Array<[string, string]> = [
    ["name", cookie.name],
    ["domain", place(cookie.domain)],
    ["path", cookie.path],
    ["secure", cookie.secure ? "yes" : "no"],
    ["httpOnly", "yes"],
    ["sameSite", cookie.sameSite ?? "(not sent)"],
    ["maxAge", String(cookie.maxAge)],
    ["set-cookie", cookie.setCookie],
  ];
  if (cookie.alsoDeletedAt.length > 0) lines.push(["deleted at", cookie.alsoDeletedAt.map(place).join(", ")]);
  io.stdout.write(lines.map(([key, value]) => `${key.padEnd(11)}${value}\n`).join(""));
}
