import type { CounterStore } from "../types.js";
import type { DeviceToken } from "./device-cookie.js";
import type { HeldLogins } from "./held-logins.js";
import type { ThrottleOptions } from "./options.js";

/** Which flood a login attempt ran into, if any. */
export type Flood = "ip" | "user" | null;

/**
 * What one counter says of an attempt, as `_user_resource_flood_control_precheck` would: within
 * its limit (this attempt included); blocked (recorded failures reach it); or held (only attempts
 * in flight push it over: wait, no failure). `recorded` is asked for only over the limit.
 */
export function verdictOf(count: number, recorded: () => number, limit: number): "within" | "blocked" | "held" {
  if (count <= limit) return "within";
  return recorded() >= limit ? "blocked" : "held";
}

/** Whom an attempt counts against: a keyed hash of the name's store key, made before any lookup. */
export interface LoginSubject {
  readonly nameHash: string;
}

/** An attempt counted before its password is checked. */
export interface Reservation {
  readonly flood: Flood;
  /**
   * The active account the name reached: with a store that `countsAccounts`, the attempt is counted on it too and
   * refused (`"user"`, settled as a failure) when its recorded failures reach the limit; else `null`, nothing counted.
   */
  account(uid: string): Promise<Flood>;
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
 * Drupal's flood control, but each attempt is counted first (atomically) and decided on that count, and only recorded failures block.
 * See docs/security.md#the-login-path-under-attack.
 */
export class LoginThrottle {
  readonly #counters: CounterStore;
  readonly #limits: Required<ThrottleOptions>;
  readonly #held: HeldLogins;
  /** The store keeps failures per account (see `CounterStore.countsAccounts`). */
  readonly #countsAccounts: boolean;

  constructor(counters: CounterStore, limits: Required<ThrottleOptions>, held: HeldLogins, countsAccounts = false) {
    this.#counters = counters;
    this.#limits = limits;
    this.#held = held;
    this.#countsAccounts = countsAccounts;
  }

  /**
   * Counts an attempt from `address` against its subject (asked for only once the address is
   * within its limit) and says which flood it met; held, it waits until `deadline`. No address:
   * the account counts alone. A `device` cookie of the account is counted alone, with the account's limit.
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
      await this.#held.wait(outcome, deadline, held !== undefined, address);
      held = outcome;
    }
  }

  /**
   * Whether the address, or the account from it, has recorded failures up to its limit: where a
   * device cookie is the remedy for a lockout (OWASP), so its holder's check may go first.
   */
  async overLimit(address: string | undefined, subject: () => Promise<LoginSubject>): Promise<boolean> {
    const { ipLimit, userLimit, perAccountOnly } = this.#limits;
    if (address !== undefined && (await this.#counters.get(failuresOf(`ip:${address}`))) >= ipLimit) return true;
    const { nameHash } = await subject();
    const key = perAccountOnly || address === undefined ? `user:${nameHash}` : `user:${nameHash}-${address}`;
    return (await this.#counters.get(failuresOf(key))) >= userLimit;
  }

  /** One try at counting an attempt: its reservation (a flood, or within every limit), or the key of the counter that holds it back. */
  async #count(address: string | undefined, subject: () => Promise<LoginSubject>, device: DeviceToken | undefined): Promise<Reservation | string> {
    const { ipLimit, ipWindow, userLimit, userWindow, perAccountOnly } = this.#limits;
    const before: Counter[] = [];
    if (address !== undefined && device === undefined) {
      const ip: Counter = { key: `ip:${address}`, window: ipWindow, limit: ipLimit };
      const verdict = await this.#step(before, ip);
      if (verdict !== "within") return verdict === "held" ? ip.key : refused("ip");
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
    if (verdict !== "within") return verdict === "held" ? last.key : refused("user");
    // A device cookie's holder is counted alone, whatever the account's count.
    return this.#reservation([...before, last], device === undefined ? address : null);
  }

  /** Counts an attempt on `counter` and judges it: blocked stays counted as a failure of each; held or an error gives all back. */
  async #step(before: readonly Counter[], counter: Counter): Promise<"within" | "blocked" | "held"> {
    const counters = this.#counters;
    const all = [...before, counter];
    let counted = before;
    try {
      const count = await counters.increment(counter.key, counter.window);
      counted = all;
      // This attempt alone on the count: any failures on record belong to an earlier window, and a record that outlived the count
      // would expire inside this one, leaving counts no failure explains (held, for nothing in flight). Both start again here.
      if (count === 1) await counters.delete(failuresOf(counter.key));
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

  /** An attempt counted within every limit, on `all` its counters; `address` keys its account's counter (`null`: none is counted). */
  #reservation(all: Counter[], address: string | undefined | null): Reservation {
    const counters = this.#counters;
    // After each way of settling, the first login held on each counter here tries again.
    const settle = async (step: (one: Counter) => Promise<unknown>) => {
      try {
        await Promise.all(all.map(step));
      } finally {
        for (const one of all) this.#held.settled(one.key);
      }
    };
    const { userLimit, userWindow, perAccountOnly } = this.#limits;
    return {
      flood: null,
      account: async (uid) => {
        if (!this.#countsAccounts || address === null) return null;
        const counter: Counter = {
          key: perAccountOnly || address === undefined ? `account:${uid}` : `account:${uid}-${address}`,
          window: userWindow,
          limit: userLimit,
        };
        const count = await counters.increment(counter.key, counter.window);
        all.push(counter);
        // Attempts in flight alone never refuse it: the name's own counter already holds them back.
        if (count <= counter.limit || (await counters.get(failuresOf(counter.key))) < counter.limit) return null;
        // Refused as Services refuses a flooded account: the attempt is a failure of each counter.
        await settle((one) => counters.increment(failuresOf(one.key), one.window));
        return "user";
      },
      release: () => settle((one) => counters.decrement(one.key)),
      // An address keeps its failures (a success is not one of them); the account, or the device cookie, forgets its own.
      succeed: () =>
        settle((one) =>
          one.key.startsWith("ip:") ? counters.decrement(one.key) : Promise.all([counters.delete(one.key), counters.delete(failuresOf(one.key))]),
        ),
      // A failure the store did not record gives its attempt back too: a count no failure explains would hold logins for the window.
      fail: () =>
        settle((one) =>
          counters.increment(failuresOf(one.key), one.window).catch(async (error: unknown) => {
            await counters.decrement(one.key).catch(() => undefined);
            throw error;
          }),
        ),
    };
  }
}

/** A refused attempt: its counts were settled when it was refused. */
function refused(flood: "ip" | "user"): Reservation {
  return { flood, account: () => Promise.resolve(flood), release: settledAlready, succeed: settledAlready, fail: settledAlready };
}

function settledAlready(): Promise<void> {
  return Promise.resolve();
}
