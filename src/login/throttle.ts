import type { CounterStore } from "../types.js";
import type { DeviceToken } from "./device-cookie.js";
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
 * Whom an attempt counts against: a keyed hash of the user store's key for the login name
 * (see `UserStore.nameKey`), made from the name alone before any lookup. Every spelling the
 * store matches to one account has one key, so they share one count; and since nothing about
 * the account goes into it, the counts cannot tell a name with an account from one without.
 */
export interface LoginSubject {
  readonly nameHash: string;
}

/** An attempt counted before its password is checked. */
export interface Reservation {
  readonly flood: Flood;
  /** Counted against a device cookie of the account (see {@link LoginThrottle.reserve}), not its address or account. */
  readonly device: boolean;
  /** The attempt is not to count after all (it was never checked): give its counts back. */
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
 * check. The address is counted first; as in Drupal, an attempt from an address over its
 * limit touches no account count (so a blocked address cannot create account keys). Unlike
 * Drupal, a name with no account is counted like one with an account, so the answers cannot
 * tell them apart. An attempt still in progress counts against its address's limit until it
 * fails (kept) or succeeds (given back): more than `ipLimit` logins at once from one address
 * are refused as a flood, even if none has failed yet.
 */
export class LoginThrottle {
  readonly #counters: CounterStore;
  readonly #limits: Required<ThrottleOptions>;

  constructor(counters: CounterStore, limits: Required<ThrottleOptions>) {
    this.#counters = counters;
    this.#limits = limits;
  }

  /**
   * Counts an attempt from `address` (a client address group) against its subject, and says
   * which flood it met. `subject` is asked for only when the address is within its limit: an
   * attempt the address's limit refuses costs the user store nothing. Without an address (see
   * addressGroup) there is no address to limit and the account is counted alone, as with
   * `perAccountOnly`: one shared count would let any client's failures lock every user out.
   *
   * An attempt that carries a device cookie of its account (`device`, already checked against
   * the account the name reaches) is counted against that cookie alone, with the account's
   * limit: its holder logged in to that account before, and keeps its own budget however many
   * failures others cause on its address or account.
   */
  async reserve(address: string | undefined, subject: () => Promise<LoginSubject>, device?: DeviceToken): Promise<Reservation> {
    const counters = this.#counters;
    if (device !== undefined) {
      const key = `device:${device.nonce}`;
      const count = await counters.increment(key, this.#limits.userWindow);
      return {
        flood: count > this.#limits.userLimit ? "user" : null,
        device: true,
        release: () => counters.decrement(key),
        succeed: () => counters.delete(key),
      };
    }
    if (address === undefined) return this.#reserveAccount(`user:${(await subject()).nameHash}`);
    const ip = `ip:${address}`;
    const ipCount = await counters.increment(ip, this.#limits.ipWindow);
    if (ipCount > this.#limits.ipLimit) return { flood: "ip", device: false, release: () => counters.decrement(ip), succeed: () => counters.decrement(ip) };
    let account: string;
    let accountCount: number;
    try {
      const { nameHash } = await subject();
      // Both kinds of account share the `user` namespace, so a store that must evict treats them alike.
      account = this.#limits.perAccountOnly ? `user:${nameHash}` : `user:${nameHash}-${address}`;
      accountCount = await counters.increment(account, this.#limits.userWindow);
    } catch (error) {
      // No half-counted attempt: give the address's count back, then fail.
      await counters.decrement(ip).catch(() => undefined);
      throw error;
    }
    return {
      flood: floodOf(ipCount, accountCount, this.#limits),
      device: false,
      release: async () => {
        await Promise.all([counters.decrement(ip), counters.decrement(account)]);
      },
      succeed: async () => {
        await Promise.all([counters.decrement(ip), counters.delete(account)]);
      },
    };
  }

  /** An attempt counted against its account only. */
  async #reserveAccount(account: string): Promise<Reservation> {
    const counters = this.#counters;
    const accountCount = await counters.increment(account, this.#limits.userWindow);
    return {
      flood: floodOf(0, accountCount, this.#limits),
      device: false,
      release: () => counters.decrement(account),
      succeed: () => counters.delete(account),
    };
  }
}
