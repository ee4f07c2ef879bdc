/**
 * What an `X-Request-Id` header may hold to be used: 1 to 128 visible ASCII characters. A
 * client chooses it (unless a proxy overwrites it), and it goes into every event of the
 * request: no tab, space or byte beyond ASCII that could forge a field in a text log.
 */
const REQUEST_ID_HEADER = /^[\x21-\x7e]{1,128}$/;

/** The `X-Request-Id` a request sent, when it looks like an id; else `undefined`. */
export function sentRequestId(header: string | null | undefined): string | undefined {
  return header !== undefined && header !== null && REQUEST_ID_HEADER.test(header) ? header : undefined;
}
