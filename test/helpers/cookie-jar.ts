/**
 * A cookie jar that keeps cookies as browsers and mobile cookie managers do (RFC 6265 §5.3,
 * with Chromium's and Firefox's identity): a host-only cookie and a `Domain` cookie of the
 * same name and path are two cookies, so a client can hold a Drupal-era
 * `domain=.sports.example.com` cookie beside a host-only one and send both. The `Cookie`
 * header lists longer paths first, then older cookies first. Only what these tests need:
 * one host, path `/`, no `Secure`/`SameSite` enforcement.
 */
export class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; domain: string; hostOnly: boolean; created: number }>();
  #clock = 0;

  constructor(readonly host: string) {}

  /** Stores one `Set-Cookie` value as a reply to a request to `host` would. */
  set(header: string): void {
    const [pair, ...attributes] = header.split(";").map((part) => part.trim());
    const eq = pair!.indexOf("=");
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    let domain = this.host;
    let hostOnly = true;
    let expired = false;
    for (const attribute of attributes) {
      const [key, val = ""] = attribute.split("=", 2) as [string, string?];
      const lower = key.toLowerCase();
      if (lower === "domain" && val !== "") {
        domain = val.replace(/^\./, "").toLowerCase();
        hostOnly = false;
      }
      if (lower === "max-age" && Number(val) <= 0) expired = true;
      if (lower === "expires" && Date.parse(val) < Date.now()) expired = true;
    }
    // A Domain that does not cover the host is refused (RFC 6265 §5.3 step 6). A replaced cookie keeps its creation time (step 11).
    if (!hostOnly && this.host !== domain && !this.host.endsWith(`.${domain}`)) return;
    const key = `${hostOnly ? "host" : "domain"}:${domain}:${name}`;
    if (expired) {
      this.#cookies.delete(key);
      return;
    }
    const created = this.#cookies.get(key)?.created ?? (this.#clock += 1);
    this.#cookies.set(key, { name, value, domain, hostOnly, created });
  }

  /** Stores every `Set-Cookie` of a reply, in order. */
  setAll(headers: readonly string[]): void {
    for (const header of headers) this.set(header);
  }

  /** The `Cookie` header a request to `host` carries (undefined when empty). */
  header(): string | undefined {
    const cookies = [...this.#cookies.values()].sort((a, b) => a.created - b.created);
    return cookies.length === 0 ? undefined : cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
  }

  /** The cookies held, as `name=value (host-only|domain=…)`. */
  list(): string[] {
    return [...this.#cookies.values()]
      .sort((a, b) => a.created - b.created)
      .map((c) => `${c.name}=${c.value} (${c.hostOnly ? "host-only" : `domain=.${c.domain}`})`);
  }
}
