import { createHmac, randomBytes } from "node:crypto";
import type { CookieAttributes } from "../cookie/cookie-headers.js";
import { safeEqual } from "../sessions/session-id.js";

/** The name prefix that browsers accept only on a `Secure`, `Path=/` cookie without `Domain`, set over HTTPS. */
const HOST_PREFIX = "__Host-";

/**
 * The device cookie beside a session cookie with the `session` attributes: its name and
 * attributes. Host-only (no `Domain`: it serves logins to this host alone), `HttpOnly`, `path=/`,
 * the session cookie's `SameSite`. Where the session cookie is `Secure`, it is `Secure` too and
 * named `__Host-<name>`, which a browser accepts only from this host over HTTPS: a sibling
 * subdomain, or a plain-HTTP reply forged on the way, cannot set one at all. Over plain HTTP
 * (development) the name is unprefixed, and planted values are only outnumbered, never obeyed.
 */
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
/** Seconds a cookie may claim to be from the future: clocks of instances sharing the key differ a little. */
const CLOCK_SKEW = 60;

/**
 * Signs and checks device cookies (OWASP's "device cookies" against lockout abuse): proof that
 * this client logged in to one account before. The value is
 * `nameHash.account.issuedAt.nonce.HMAC-SHA256(key, the rest)`, the key derived from the secret
 * for this purpose alone; `account` is a keyed tag of the uid (as the user store identifies
 * the account), so the cookie holds no name or uid, nothing in it can be chosen by the client,
 * and an account whose name folds like another's (`démo`, `demo`) earns nothing for the other.
 */
export class DeviceCookies {
  readonly #key: Buffer;
  readonly #tagKey: Buffer;
  readonly #maxAge: number;

  constructor(key: Buffer, maxAge: number) {
    this.#key = key;
    // A key of its own for the account tags, so that no tag is ever a MAC of some cookie body.
    this.#tagKey = createHmac("sha256", key).update("device cookie account tag").digest();
    this.#maxAge = maxAge;
  }

  /** A new cookie value for the account `uid`, logged in to with the name whose keyed hash is `nameHash`, issued at `now` (Unix seconds). */
  issue(nameHash: string, uid: string, now: number): string {
    const body = `${nameHash}.${this.#tag(uid)}.${now}.${randomBytes(16).toString("base64url")}`;
    return `${body}.${this.#mac(body)}`;
  }

  /**
   * Every one of `values` that this key signed and that is still good at `now`. A value of any
   * other shape, a forged or altered one and an expired one are all just no device cookie, and
   * none of them hides a good one: all are read (one shape test and at most one MAC each, so
   * the work is bounded by the header that carried them).
   */
  read(values: readonly string[], now: number): DeviceToken[] {
    const good: DeviceToken[] = [];
    for (const value of values) {
      const match = SHAPE.exec(value);
      if (match === null) continue;
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
