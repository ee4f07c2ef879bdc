import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A device cookie that checked out: whose it is (the keyed hash of a login name) and its own id. */
export interface DeviceToken {
  readonly nameHash: string;
  /** The cookie's random id: what its own failures are counted against. */
  readonly nonce: string;
}

/** `nameHash.issuedAt.nonce.mac`: the name hash and nonce are 22 base64url characters, the MAC 43. */
const SHAPE = /^([\w-]{22})\.(\d{1,12})\.([\w-]{22})\.([\w-]{43})$/;
/** Seconds a cookie may claim to be from the future: clocks of instances sharing the key differ a little. */
const CLOCK_SKEW = 60;

/**
 * Signs and checks device cookies (OWASP's "device cookies" against lockout abuse): proof that
 * this client logged in to the account of one login name before. The value is
 * `nameHash.issuedAt.nonce.HMAC-SHA256(key, the rest)`, the key derived from the secret for
 * this purpose alone; it holds no name, and nothing in it can be chosen by the client.
 */
export class DeviceCookies {
  readonly #key: Buffer;
  readonly #maxAge: number;

  constructor(key: Buffer, maxAge: number) {
    this.#key = key;
    this.#maxAge = maxAge;
  }

  /** A new cookie value for the login name whose keyed hash is `nameHash`, issued at `now` (Unix seconds). */
  issue(nameHash: string, now: number): string {
    const body = `${nameHash}.${now}.${randomBytes(16).toString("base64url")}`;
    return `${body}.${this.#mac(body)}`;
  }

  /**
   * The first of `values` that this key signed and that is still good at `now`, or
   * `undefined`. A value of any other shape, a forged or altered one and an expired one are
   * all just no device cookie.
   */
  read(values: readonly string[], now: number): DeviceToken | undefined {
    for (const value of values) {
      const match = SHAPE.exec(value);
      if (match === null) continue;
      const [, nameHash, issued, nonce, mac] = match as unknown as [string, string, string, string, string];
      const issuedAt = Number(issued);
      if (issuedAt + this.#maxAge <= now || issuedAt > now + CLOCK_SKEW) continue;
      const expected = Buffer.from(this.#mac(value.slice(0, value.length - mac.length - 1)));
      if (timingSafeEqual(expected, Buffer.from(mac))) return { nameHash, nonce };
    }
    return undefined;
  }

  #mac(body: string): string {
    return createHmac("sha256", this.#key).update(body).digest("base64url");
  }
}
