import { createEngine, type BindingProfile, type Engine } from "../engine/engine.js";
import { SessionAuthError } from "../errors.js";
import { trustProxyOption, type TrustFunction, type TrustProxy } from "../http-input/trust-proxy.js";
import type { SessionAuthOptions } from "../options/options.js";
import { fn, parseOptions } from "../validate.js";
import { z } from "zod";

/** The options of a binding over Web `Request`s: the package's, the proxies to believe, and where the client's address comes from. */
export interface WebSessionAuthOptions<Address> extends SessionAuthOptions {
  /**
   * The proxies in front ({@link TrustProxy}): behind them the scheme and client come from `X-Forwarded-*`.
   * Without it every client behind a proxy is the proxy, locking each other out.
   * @default false
   */
  trustProxy?: TrustProxy;
  /**
   * The peer's address on a runtime that hands none beside the request (Cloudflare: the `cf-connecting-ip` header).
   * @default the runtime's: Node's socket (`{ incoming }`), Bun's `server.requestIP`, Deno's `info.remoteAddr`
   */
  clientAddress?: Address;
}

const addressSchema = z.object({ clientAddress: fn<(...args: never[]) => string | undefined>("function returning string | undefined").optional() });

/** A URI no route could decode (a router's `decodeURIComponent`) as the wire format's; `undefined` for any other error. */
function undecodable(error: unknown): SessionAuthError | undefined {
  return error instanceof URIError ? new SessionAuthError("ERR_MALFORMED_REQUEST") : undefined;
}

/** The engine of a binding over Web `Request`s, the compiled `trustProxy`, and the app's `clientAddress`, each checked once. */
export function webBinding<Address>(
  options: WebSessionAuthOptions<Address>,
  profile: BindingProfile,
): { readonly engine: Engine; readonly trust: TrustFunction | undefined; readonly address: Address | undefined } {
  const { trustProxy, clientAddress, ...engineOptions } = options ?? ({} as WebSessionAuthOptions<Address>);
  const trust = trustProxyOption(trustProxy, profile.factory);
  parseOptions(addressSchema, { clientAddress }, profile.factory);
  const engine = createEngine(engineOptions, { foreignError: undecodable, ...profile });
  return { engine, trust, address: clientAddress };
}
