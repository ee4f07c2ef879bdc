import type { CounterStore } from "../types.js";
import type { ThrottleOptions } from "./options.js";

/** Which flood a login attempt ran into, if any. */
export type Flood = "ip" | "user" | null;

/**
 * Drupal's flood decision (`_user_resource_flood_control_precheck`), free of I/O: the IP
 * limit is checked first, then the account's.
 */
export function floodOf(ipFailures: number, userFailures: number, limits: Required<ThrottleOptions>): Flood {
  if (ipFailures >= limits.ipLimit) return "ip";
  if (userFailures >= limits.userLimit) return "user";
  return null;
}

/**
 * Login throttling as Drupal's flood control does it, over a shared {@link CounterStore}:
 * failures are counted per client IP and per account (+IP), checked before any password is
 * hashed, recorded only on failure, and a success clears that account's count.
 */
export class LoginThrottle {
  readonly #counters: CounterStore;
  readonly #limits: Required<ThrottleOptions>;

  constructor(counters: CounterStore, limits: Required<ThrottleOptions>) {
    this.#counters = counters;
    this.#limits = limits;
  }

  #userKey(uid: string, ip: string): string {
    return this.#limits.perAccountOnly ? `flood:user:${uid}` : `flood:user:${uid}-${ip}`;
  }

  /** Which flood, if any, blocks this attempt. `uid` is the account's, when the name matched one. */
  async check(ip: string, uid: string | undefined): Promise<Flood> {
    const [ipFailures, userFailures] = await Promise.all([
      this.#counters.get(`flood:ip:${ip}`),
      uid === undefined ? Promise.resolve(0) : this.#counters.get(this.#userKey(uid, ip)),
    ]);
    return floodOf(ipFailures, userFailures, this.#limits);
  }

  /** Records a failed attempt (also one refused by the flood, which keeps a block going, as in Drupal). */
  async registerFailure(ip: string, uid: string | undefined): Promise<void> {
    await Promise.all([
      this.#counters.increment(`flood:ip:${ip}`, this.#limits.ipWindow),
      uid === undefined ? undefined : this.#counters.increment(this.#userKey(uid, ip), this.#limits.userWindow),
    ]);
  }

  /** Forgets an account's failures after it logs in from this IP (IP failures are kept, as in Drupal). */
  async clear(ip: string, uid: string): Promise<void> {
    await this.#counters.delete(this.#userKey(uid, ip));
  }
}
