import { isIP } from "node:net";
import type { Emit } from "../events.js";
import { plainAddress } from "../http-input/address.js";

/** What the `address.unknown` event says, and how to fix it (`hint`: how the binding's users give the address or trust their proxy). */
function unaddressedMessage(address: string, hint: string): string {
  const what = address === "" ? "a request came without a client address" : `client address ${JSON.stringify(address.slice(0, 64))} is not an IP address`;
  return `${what}: logins from such requests have no per-address limit (each account's own limit still holds) and wait for a password check first come, first served. ${hint}`;
}

/** The fix behind a proxy or on a Unix socket, in the words of the framework's own `trustProxyFix`. */
export function proxyAddressHint(trustProxyFix: string): string {
  return (
    `Behind a proxy, ${trustProxyFix}. On a Unix socket there is no proxy address to trust, so ` +
    '"loopback" or an address list leaves the client address (and the scheme, hence the Secure cookie) as if no proxy were there. ' +
    "Without a proxy, listen on a TCP port."
  );
}

/** Reports, once, the first client address that is no IP address (`address.unknown`): every later one is the same misconfiguration. */
export function unaddressedReporter(emit: Emit, hint: string): (ip: string, requestId?: string) => void {
  let reported = false;
  return (ip, requestId) => {
    if (reported || isIP(plainAddress(ip).split("%", 1)[0]!) !== 0) return;
    reported = true;
    emit({ type: "address.unknown", address: ip.slice(0, 64), message: unaddressedMessage(ip, hint) }, requestId);
  };
}
