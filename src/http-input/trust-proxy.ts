import proxyAddr from "proxy-addr";
import { z } from "zod";
import { fn, parseOptions } from "../validate.js";

/**
 * The proxies to believe, as Express's `trust proxy`: `false` (the runtime's peer), a hop count,
 * addresses, subnets or `loopback`/`linklocal`/`uniquelocal`, a function of address and hop, or
 * `true` (every hop: `X-Forwarded-For`'s first address, which a client can set).
 */
export type TrustProxy = boolean | number | string | readonly string[] | ((address: string | undefined, hop: number) => boolean);

/** A compiled {@link TrustProxy}: whether the address at a hop (the peer at 0) is a proxy to believe. */
export type TrustFunction = (address: string | undefined, hop: number) => boolean;

/**
 * The setting as a function; `undefined` for `false`, so no forwarded header is read.
 * @throws TypeError for an address or subnet that is none (`"10.0.0.300"`, `"localhost"`).
 */
export function compileTrust(setting: TrustProxy): TrustFunction | undefined {
  if (setting === false) return undefined;
  if (setting === true) return () => true;
  if (typeof setting === "number") return (_address, hop) => hop < setting;
  if (typeof setting === "function") return setting;
  const listed = typeof setting === "string" ? setting.split(",").map((one) => one.trim()) : [...setting];
  try {
    const trusted = proxyAddr.compile(listed);
    return (address, hop) => address !== undefined && trusted(address, hop);
  } catch (error) {
    throw new TypeError((error as Error).message);
  }
}

/** The client's address as Express's `req.ip`: the peer's, or the last `X-Forwarded-For` hop not a believed proxy. */
export function clientAddressOf(peer: string | undefined, forwardedFor: string | undefined, trust: TrustFunction | undefined): string | undefined {
  if (trust === undefined || forwardedFor === undefined) return peer;
  // proxy-addr reads the peer from the socket and the header from the headers: a request of that shape, and nothing more.
  return proxyAddr({ socket: { remoteAddress: peer }, headers: { "x-forwarded-for": forwardedFor } } as unknown as Parameters<typeof proxyAddr>[0], trust);
}

const trustProxySchema = z.strictObject({
  trustProxy: z
    .union([z.boolean(), z.number().int().nonnegative(), z.string(), z.array(z.string()).readonly(), fn<TrustFunction>("(address, hop) => boolean")])
    .optional(),
});

/**
 * The `trustProxy` option of a binding that reads forwarded headers itself, checked and compiled.
 * @throws TypeError naming `factory` for an invalid setting.
 */
export function trustProxyOption(setting: unknown, factory: string): TrustFunction | undefined {
  const trustProxy = parseOptions(trustProxySchema, { trustProxy: setting }, factory).trustProxy ?? false;
  try {
    return compileTrust(trustProxy);
  } catch (error) {
    throw new TypeError(`${factory}: invalid options: trustProxy: ${(error as Error).message}`);
  }
}
