/** A usable `X-Request-Id`: 1–128 visible ASCII characters, so a client's value cannot forge a field in a text log. */
const REQUEST_ID_HEADER = /^[\x21-\x7e]{1,128}$/;

/** The `X-Request-Id` a request sent, when it looks like an id; else `undefined`. */
export function sentRequestId(header: string | null | undefined): string | undefined {
  return header !== undefined && header !== null && REQUEST_ID_HEADER.test(header) ? header : undefined;
}
