import type { CounterStore } from "../types.js";
import type { DeviceToken } from "./device-cookie.js";
import type { HeldLogins } from "./held-logins.js";
import type { ThrottleOptions } from "./options.js";

/** Which flood a login attempt ran into, if any. */
export type Flood = "ip" | "user" | null;

/**
 * What one counter says of an attempt, free of I/O, as Drupal's flood check would
 * (`_user_resource_flood_control_precheck`): within its limit on the count that includes this
 * attempt (the limit-th is still checked); over it on `recorded` failures alone (blocked); or
 * over it only because other attempts are still being checked (held: it must wait, and it is
 * no failure). `recorded` is asked for only when the count is over the limit.
 */
export function verdictOf(count: number, recorded: () => number, limit: number): "within" | "blocked" | "held" {
  if (count <= limit) return "within";
  return recorded() >= limit ? "blocked" : "held";
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
  /** The attempt failed (or was refused on its input): it stays counted, and is recorded as a failure. */
  fail(): Promise<void>;
}

/** One counter an attempt is counted on: its key, window and limit. */
interface Counter {
  readonly key: string;
  readonly window: number;
  readonly limit: number;
}

/** A counter's recorded failures: a key of its own, in a namespace of its own (`failed-ip`, `failed-user`, `failed-device`). */
function failuresOf(key: string): string {
  return `failed-${key}`;
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
 * check. Each counter (`ip:…`, `user:…`, `device:…`) counts the attempts in progress and the
 * failures; a second key (`failed-ip:…`, …) counts the failures alone. An attempt over a
 * limit is refused as a flood only when the recorded failures reach it: one held back only by
 * attempts still in progress (a burst of right passwords, an app that retries) gives its
 * counts back, waits its turn in this process ({@link HeldLogins}) and tries again, and past
 * its deadline is told to retry (`ERR_LOGIN_BUSY`); it is never counted as a failure.
 *
 * The address is counted first; as in Drupal, an attempt from an address over its limit
 * touches no account count (so a blocked address cannot create account keys), and a refused
 * attempt is recorded as a failure of its address and account. Unlike Drupal, a name with no
 * account is counted like one with an account, so the answers cannot tell them apart.
 */
export class LoginThrottle {
  readonly #counters: CounterStore;
  readonly #limits: Required<ThrottleOptions>;
  readonly #held: HeldLogins;

  constructor(counters: CounterStore, limits: Required<ThrottleOptions>, held: HeldLogins) {
    this.#counters = counters;
    this.#limits = limits;
    this.#held = held;
  }

  /**
   * Counts an attempt from `address` (a client address group) against its subject, and says
   * which flood it met; an attempt held back by others in progress waits until `deadline`
   * (`performance.now()` milliseconds). `subject` is asked for only when the address is within
   * its limit: an attempt the address's limit refuses costs the user store nothing. Without an
   * address (see addressGroup) there is no address to limit and the account is counted alone,
   * as with `perAccountOnly`: one shared count would let any client's failures lock every user out.
   *
   * An attempt that carries a device cookie of its account (`device`, already checked against
   * the account the name reaches) is counted against that cookie alone, with the account's
   * limit: its holder logged in to that account before, and keeps its own budget however many
   * failures others cause on its address or account.
   * @throws SessionAuthError `ERR_LOGIN_BUSY` when it is still held at `deadline`, or too many are held.
   */
  async reserve(address: string | undefined, subject: () => Promise<LoginSubject>, deadline: number, device?: DeviceToken): Promise<Reservation> {
    let held: string | undefined;
    for (;;) {
      const outcome = await this.#count(address, subject, device);
      if (typeof outcome !== "string") {
        // Not held once more: the next login waiting on that counter may go now.
        if (held !== undefined) this.#held.settled(held);
        return outcome;
      }
      await this.#held.wait(outcome, deadline, held !== undefined);
      held = outcome;
    }
  }

  /** One try at counting an attempt: its reservation (a flood, or within every limit), or the key of the counter that holds it back. */
  async #count(address: string | undefined, subject: () => Promise<LoginSubject>, device: DeviceToken | undefined): Promise<Reservation | string> {
    const { ipLimit, ipWindow, userLimit, userWindow, perAccountOnly } = this.#limits;
    const before: Counter[] = [];
    if (address !== undefined && device === undefined) {
      const ip: Counter = { key: `ip:${address}`, window: ipWindow, limit: ipLimit };
      const verdict = await this.#step(before, ip);
      if (verdict !== "within") return verdict === "held" ? ip.key : refused("ip", false);
      before.push(ip);
    }
    let last: Counter;
    if (device !== undefined) last = { key: `device:${device.nonce}`, window: userWindow, limit: userLimit };
    else {
      let nameHash: string;
      try {
        ({ nameHash } = await subject());
      } catch (error) {
        // No half-counted attempt: give the address's count back, then fail.
        await this.#giveBack(before);
        throw error;
      }
      // Both kinds of account share the `user` namespace, so a store that must evict treats them alike.
      const key = perAccountOnly || address === undefined ? `user:${nameHash}` : `user:${nameHash}-${address}`;
      last = { key, window: userWindow, limit: userLimit };
    }
    const verdict = await this.#step(before, last);
    if (verdict !== "within") return verdict === "held" ? last.key : refused("user", device !== undefined);
    return this.#reservation([...before, last], device !== undefined);
  }

  /**
   * Counts an attempt on `counter`, `before` being the counters it is already counted on, and
   * says what the count means (see {@link verdictOf}). Blocked: the attempt stays counted on
   * them all and is recorded as a failure of each, as Drupal records a refused attempt. Held:
   * every count is given back. An error gives every count back too.
   */
  async #step(before: readonly Counter[], counter: Counter): Promise<"within" | "blocked" | "held"> {
    const counters = this.#counters;
    const all = [...before, counter];
    let counted = before;
    try {
      const count = await counters.increment(counter.key, counter.window);
      counted = all;
      if (count <= counter.limit) return "within";
      const recorded = await counters.get(failuresOf(counter.key));
      const verdict = verdictOf(count, () => recorded, counter.limit);
      if (verdict === "blocked") await Promise.all(all.map((one) => counters.increment(failuresOf(one.key), one.window)));
      else await this.#giveBack(all);
      return verdict;
    } catch (error) {
      await this.#giveBack(counted);
      throw error;
    }
  }

  /** Gives an attempt's counts back, as far as the store takes them: on the way to an error, or a login held back. */
  async #giveBack(counted: readonly Counter[]): Promise<void> {
    await Promise.all(counted.map((one) => this.#counters.decrement(one.key))).catch(() => undefined);
  }

  /** An attempt counted within every limit, on `all` its counters. */
  #reservation(all: readonly Counter[], device: boolean): Reservation {
    const counters = this.#counters;
    // After each way of settling, the first login held on each counter here tries again.
    const settle = async (step: (one: Counter) => Promise<unknown>) => {
      try {
        await Promise.all(all.map(step));
      } finally {
        for (const one of all) this.#held.settled(one.key);
      }
    };
    return {
      flood: null,
      device,
      release: () => settle((one) => counters.decrement(one.key)),
      // An address keeps its failures (a success is not one of them); the account, or the device cookie, forgets its own.
      succeed: () =>
        settle((one) =>
          one.key.startsWith("ip:") ? counters.decrement(one.key) : Promise.all([counters.delete(one.key), counters.delete(failuresOf(one.key))]),
        ),
      fail: () => settle((one) => counters.increment(failuresOf(one.key), one.window)),
    };
  }
}

/** A refused attempt: its counts were settled when it was refused. */
function refused(flood: "ip" | "user", device: boolean): Reservation {
  return { flood, device, release: settledAlready, succeed: settledAlready, fail: settledAlready };
}

function settledAlready(): Promise<void> {
  return Promise.resolve();
}
