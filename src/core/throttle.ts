import type { CounterStore } from "../types.js";
import type { ThrottleOptions } from "./options.js";

/** Which flood a login attempt ran into, if any. */
export type Flood = "ip" | "user" | null;

/**
 * Drupal's flood decision (`_user_resource_flood_control_precheck`), free of I/O, on the
 * counts that include this attempt: the IP limit is checked first, then the account's. The
 * limit-th attempt is still checked; the one after it is refused.
 */
export function floodOf(ipCount: number, accountCount: number, limits: Required<ThrottleOptions>): Flood {
  if (ipCount > limits.ipLimit) return "ip";
  if (accountCount > limits.userLimit) return "user";
  return null;
}

/**
 * Whom an attempt counts against: the account by uid, or, for a name with no account, the
 * keyed hash of the name, so that names with and without accounts are limited alike.
 */
export type LoginSubject = { readonly uid: string } | { readonly nameHash: string };

/** An attempt counted before its password is checked. */
export interface Reservation {
  readonly flood: Flood;
  /** The attempt is not to count after all (it was never checked): give both counts back. */
  release(): Promise<void>;
  /** The password was right: the account's failures are forgotten, and the attempt is not an IP failure. */
  succeed(): Promise<void>;
}

/**
 * Login throttling as Drupal's flood control does it, over a shared {@link CounterStore}:
 * failures are counted per client address and per account (with the address, unless
 * `perAccountOnly`), the account's are cleared by a success, and a flooded attempt is refused
 * without any password check.
 *
 * Unlike Drupal, which reads the counts before checking the password and writes them after,
 * an attempt is counted first, by the store's atomic increment, and the decision is made on
 * the count that increment answered. So N attempts arriving together see the counts 1 to N,
 * on one instance or on many sharing a store, and no more than the limit reach the password
 * check. Unlike Drupal, too, a name with no account is counted like one with an account,
 * so the answers cannot tell them apart.
 */
export class LoginThrottle {
  readonly #counters: CounterStore;
  readonly #limits: Required<ThrottleOptions>;

  constructor(counters: CounterStore, limits: Required<ThrottleOptions>) {
    this.#counters = counters;
    this.#limits = limits;
  }

  /**
   * The keys an attempt counts under. Both kinds of account key share the `user` namespace,
   * so that a store that must evict treats them alike (see memoryCounterStore).
   */
  keys(address: string, subject: LoginSubject): { readonly ip: string; readonly account: string } {
    const id = "uid" in subject ? subject.uid : `~${subject.nameHash}`;
    return { ip: `ip:${address}`, account: this.#limits.perAccountOnly ? `user:${id}` : `user:${id}-${address}` };
  }

  /** Counts an attempt from `address` (a client address group) against `subject`, and says which flood it met. */
  async reserve(address: string, subject: LoginSubject): Promise<Reservation> {
    const { ip, account } = this.keys(address, subject);
    const counters = this.#counters;
    const [ipCount, accountCount] = await Promise.allSettled([
      counters.increment(ip, this.#limits.ipWindow),
      counters.increment(account, this.#limits.userWindow),
    ]);
    if (ipCount.status === "rejected" || accountCount.status === "rejected") {
      // No half-counted attempt: give back whichever count was taken, then fail.
      await Promise.allSettled([ipCount.status === "fulfilled" ? counters.decrement(ip) : undefined, accountCount.status === "fulfilled" ? counters.decrement(account) : undefined]);
      throw ipCount.status === "rejected" ? ipCount.reason : (accountCount as PromiseRejectedResult).reason;
    }
    return {
      flood: floodOf(ipCount.value, accountCount.value, this.#limits),
      release: async () => {
        await Promise.all([counters.decrement(ip), counters.decrement(account)]);
      },
      succeed: async () => {
        await Promise.all([counters.decrement(ip), counters.delete(account)]);
      },
    };
  }
}
