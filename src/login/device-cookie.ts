import { createHmac, randomBytes } from "node:crypto";
import type { CookieAttributes } from "../cookie/cookie-headers.js";
import { safeEqual } from "../sessions/session-id.js";

/** The name prefix that browsers accept only on a `Secure`, `Path=/` cookie without `Domain`, set over HTTPS. */
const HOST_PREFIX = "__Host-";

/** The device cookie's name and attributes: host-only, `HttpOnly`, and `__Host-<name>` over HTTPS so none can be planted. */
export function devicePlacement(name: string, session: CookieAttributes, maxAge: number): { readonly name: string; readonly attributes: CookieAttributes } {
  return {
    name: session.secure ? `${HOST_PREFIX}${name}` : name,
    attributes: { secure: session.secure, domain: undefined, maxAge, sameSite: session.sameSite },
  };
}

/** A device cookie that checked out: signed here, still good, for one login name and one account. */
export interface DeviceToken {
  /** The keyed hash of the login name it was earned with: a cheap first filter, before any lookup. */
  readonly nameHash: string;
  /** The keyed tag of the account's uid: what binds it to that account, whatever names fold alike. */
  readonly account: string;
  /** The cookie's random id: what its own failures are counted against. */
  readonly nonce: string;
}

/** `nameHash.account.issuedAt.nonce.mac`: the name hash, account tag and nonce are 22 base64url characters, the MAC 43. */
const SHAPE = /^([\w-]{22})\.([\w-]{22})\.(\d{1,12})\.([\w-]{22})\.([\w-]{43})$/;
/** Well-formed device cookies checked per request: a browser keeps a few of one name (paths, a sibling's planted ones), never more. */
const MAX_CHECKED = 8;
/** Seconds a cookie may claim to be from the future: clocks of instances sharing the key differ a little. */
const CLOCK_SKEW = 60;

/** Signs and checks device cookies under a key of their own; an account tag (never a name or uid) binds each to one account (docs/security.md). */
export class DeviceCookies {
  readonly #key: Buffer;
  readonly #tagKey: Buffer;
  readonly #maxAge: number;

  constructor(key: Buffer, maxAge: number) {
    this.#key = key;
    // Its own key for account tags: no tag is ever a MAC of some cookie body.
    this.#tagKey = createHmac("sha256", key).update("device cookie account tag").digest();
    this.#maxAge = maxAge;
  }

  /** A new cookie value for the account `uid`, logged in to with the name whose keyed hash is `nameHash`, issued at `now` (Unix seconds). */
  issue(nameHash: string, uid: string, now: number): string {
    const body = `${nameHash}.${this.#tag(uid)}.${now}.${randomBytes(16).toString("base64url")}`;
    return `${body}.${this.#mac(body)}`;
  }

  /**
   * Those of `values` signed here and still good: every well-formed one up to {@link MAX_CHECKED}
   * (so a planted value cannot hide a good one behind it, and a request buys at most that many MACs).
   */
  read(values: readonly string[], now: number): DeviceToken[] {
    const good: DeviceToken[] = [];
    let checked = 0;
    for (const value of values) {
      const match = SHAPE.exec(value);
      if (match === null) continue;
      if (++checked > MAX_CHECKED) break;
      const [, nameHash, account, issued, nonce, mac] = match as unknown as [string, string, string, string, string, string];
      const issuedAt = Number(issued);
      if (issuedAt + this.#maxAge <= now || issuedAt > now + CLOCK_SKEW) continue;
      if (safeEqual(this.#mac(value.slice(0, value.length - mac.length - 1)), mac)) good.push({ nameHash, account, nonce });
    }
    return good;
  }

  /** The first of `tokens` earned by the account `uid`, compared in constant time, or `undefined`. */
  forAccount(tokens: readonly DeviceToken[], uid: string): DeviceToken | undefined {
    const tag = this.#tag(uid);
    return tokens.find((token) => safeEqual(token.account, tag));
  }

  #tag(uid: string): string {
    return createHmac("sha256", this.#tagKey).update(uid).digest("base64url").slice(0, 22);
  }

  #mac(body: string): string {
    return createHmac("sha256", this.#key).update(body).digest("base64url");
  }
}
