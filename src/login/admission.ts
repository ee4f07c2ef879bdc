import { SessionAuthError } from "../errors.js";
import type { HashingOptions } from "./options.js";

interface Waiter {
  readonly start: () => void;
  readonly refuse: () => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** How fast the estimate of a check's cost follows new measurements. */
const SMOOTHING = 0.2;
/** The assumed cost of one check, in seconds, until one has been measured. */
const INITIAL_COST = 1;
/** After this a check that has not settled gives its slot back (503): a hung hasher must not hold every slot. */
const CHECK_TIMEOUT_MS = 60_000;

/**
 * Admission control for password checks: `concurrency` at once, addresses served in turn, a 503
 * past `maxWait` (docs/security.md). A device cookie's holder locked out by others goes in a
 * priority lane: one waiting per account, and every other start at most while others wait, so no
 * account can starve the rest.
 */
export class HashAdmission {
  readonly #options: Readonly<Required<HashingOptions>>;
  /** Each client's waiting tasks, oldest first; the map's order is the rotation. */
  readonly #queues = new Map<string, Waiter[]>();
  /** Priority tasks waiting, oldest first, each with its client and account. */
  readonly #priority: Array<{ readonly client: string; readonly account: string; readonly waiter: Waiter }> = [];
  /** Whether the last task started came from the priority lane: the next goes to a client's queue if one waits. */
  #priorityLast = false;
  /** Each client's running tasks. */
  readonly #active = new Map<string, number>();
  /** When each client with running or waiting tasks last had one started (a sequence number). */
  readonly #lastStart = new Map<string, number>();
  #starts = 0;
  #unaddressed = 0;
  #waiting = 0;
  #running = 0;
  #cost = INITIAL_COST;
  #measured = false;

  constructor(options: Readonly<Required<HashingOptions>>) {
    this.#options = options;
  }

  /** What one check costs, in seconds: measured on recent checks (1 until one has been). */
  get checkSeconds(): number {
    return this.#cost;
  }

  /** Seconds a login turned away should wait before it tries again: about one check, at least 1, at most `maxWait`. */
  get retryAfter(): number {
    return Math.max(1, Math.min(Math.ceil(this.#cost), Math.ceil(this.#options.maxWait)));
  }

  /** Tasks running now and waiting now: for tests and health checks. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.#running, waiting: this.#waiting };
  }

  /**
   * Runs `task` for `client` when a slot is free and its turn comes; no client (no IP address) is a
   * client of its own. `priority` names the account of a device cookie's holder locked out by others
   * (one of its logins waits in the priority lane at a time). `within` is the most seconds it may wait.
   * @throws SessionAuthError `ERR_LOGIN_BUSY` when it would wait too long.
   */
  async run<T>(from: string | undefined, task: () => Promise<T>, priority?: string, within = this.#options.maxWait): Promise<T> {
    // A key no address group can be (they are IP addresses and prefixes).
    const client = from ?? `unaddressed ${++this.#unaddressed}`;
    if (this.#running >= this.#options.concurrency || this.#waiting > 0) {
      const first = priority !== undefined && !this.#priority.some((entry) => entry.account === priority);
      await (first ? this.#waitFirst(client, priority, within) : this.#wait(client, within));
    } else this.#start(client);
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      // One promise settled by whichever comes first, the check or its time limit: no race of two.
      return await new Promise<T>((resolve, reject) => {
        timer = setTimeout(() => reject(this.#busy()), CHECK_TIMEOUT_MS).unref();
        task().then(resolve, reject);
      });
    } finally {
      clearTimeout(timer);
      this.#observe((performance.now() - started) / 1000);
      this.#running -= 1;
      const left = (this.#active.get(client) ?? 1) - 1;
      if (left > 0) this.#active.set(client, left);
      else {
        this.#active.delete(client);
        if (!this.#queues.has(client)) this.#lastStart.delete(client);
      }
      this.#next();
    }
  }

  #start(client: string): void {
    this.#running += 1;
    this.#active.set(client, (this.#active.get(client) ?? 0) + 1);
    this.#lastStart.set(client, ++this.#starts);
  }

  #wait(client: string, maxWait: number): Promise<void> {
    const { concurrency, maxQueue } = this.#options;
    const own = this.#queues.get(client)?.length ?? 0;
    // Ahead: this client's own waiting tasks, and at most one per round of every other's.
    const rank = this.#rank(client);
    let first = 0;
    let later = 0;
    let seen = false;
    for (const other of this.#queues.keys()) {
      if (other === client) seen = true;
      else if (this.#before(this.#rank(other), rank, !seen)) first += 1;
      else later += 1;
    }
    // The priority lane goes first, whatever the rotation.
    const ahead = this.#priority.length + own + Math.min(this.#waiting - this.#priority.length - own, first * (own + 1) + later * own);
    const wait = (ahead / concurrency + 1) * this.#cost;
    if (wait > maxWait || (this.#waiting >= maxQueue && !this.#shed(own))) return Promise.reject(this.#busy());
    return new Promise<void>((resolve, reject) => {
      const queue = this.#queues.get(client) ?? [];
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        refuse: () => reject(this.#busy()),
        // Unref'd: a login still waiting must not keep a stopping process alive.
        timer: setTimeout(() => {
          this.#remove(client, waiter);
          reject(this.#busy());
        }, maxWait * 1000).unref(),
      };
      queue.push(waiter);
      if (queue.length === 1) this.#queues.set(client, queue);
      this.#waiting += 1;
    });
  }

  /** Waits in the priority lane: behind the priority tasks already waiting, taking turns with the client queues. */
  #waitFirst(client: string, account: string, maxWait: number): Promise<void> {
    const { concurrency, maxQueue } = this.#options;
    const wait = (this.#priority.length / concurrency + 1) * this.#cost;
    // A full queue makes room by turning away the newest task of the longest client queue, whatever its length.
    if (wait > maxWait || (this.#waiting >= maxQueue && !this.#shed(-1))) return Promise.reject(this.#busy());
    return new Promise<void>((resolve, reject) => {
      const entry = {
        client,
        account,
        waiter: {
          start: () => {
            clearTimeout(entry.waiter.timer);
            resolve();
          },
          refuse: () => reject(this.#busy()),
          timer: setTimeout(() => {
            const at = this.#priority.indexOf(entry);
            if (at !== -1) {
              this.#priority.splice(at, 1);
              this.#waiting -= 1;
            }
            reject(this.#busy());
          }, maxWait * 1000).unref(),
        },
      };
      this.#priority.push(entry);
      this.#waiting += 1;
    });
  }

  /** A client's turn order: fewer tasks running first, then the one whose last task started earliest (never, first). */
  #rank(client: string): readonly [number, number] {
    return [this.#active.get(client) ?? 0, this.#lastStart.get(client) ?? 0];
  }

  /** Whether rank `a` goes before rank `b`; on a tie, `earlier` (a comes first in the rotation) decides. */
  #before(a: readonly [number, number], b: readonly [number, number], earlier: boolean): boolean {
    return a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : earlier;
  }

  /** Makes room in a full queue by turning away the newest task of the longest queue, if longer than this client's would be. */
  #shed(own: number): boolean {
    let longest: string | undefined;
    let length = own + 1;
    for (const [client, queue] of this.#queues) {
      // For a priority task (own < 0), the last of equally long queues: the client that came last.
      if (queue.length > length || (own < 0 && queue.length === length)) [longest, length] = [client, queue.length];
    }
    if (longest === undefined) return false;
    const queue = this.#queues.get(longest)!;
    const waiter = queue[queue.length - 1]!;
    this.#remove(longest, waiter);
    clearTimeout(waiter.timer);
    waiter.refuse();
    return true;
  }

  /** Starts the oldest task of the client whose turn it is, so a burst holding slots cannot take a freed one. */
  #next(): void {
    if (this.#running >= this.#options.concurrency || this.#waiting === 0) return;
    // The lanes take turns while both have waiters: priority is a remedy for the locked out, not a way to go first always.
    const turn = !this.#priorityLast || this.#queues.size === 0;
    const first = turn ? this.#priority.shift() : undefined;
    this.#priorityLast = first !== undefined;
    if (first !== undefined) {
      this.#waiting -= 1;
      this.#start(first.client);
      first.waiter.start();
      return;
    }
    let chosen = "";
    let best: readonly [number, number] = [Infinity, Infinity];
    for (const client of this.#queues.keys()) {
      const rank = this.#rank(client);
      if (this.#before(rank, best, false)) [chosen, best] = [client, rank];
      if (rank[0] === 0 && rank[1] === 0) break;
    }
    const queue = this.#queues.get(chosen)!;
    const waiter = queue.shift()!;
    this.#queues.delete(chosen);
    if (queue.length > 0) this.#queues.set(chosen, queue);
    this.#waiting -= 1;
    this.#start(chosen);
    waiter.start();
  }

  #remove(client: string, waiter: Waiter): void {
    const queue = this.#queues.get(client);
    const at = queue?.indexOf(waiter) ?? -1;
    if (queue === undefined || at === -1) return;
    queue.splice(at, 1);
    if (queue.length === 0) {
      this.#queues.delete(client);
      if (!this.#active.has(client)) this.#lastStart.delete(client);
    }
    this.#waiting -= 1;
  }

  #observe(seconds: number): void {
    this.#cost = this.#measured ? this.#cost + SMOOTHING * (seconds - this.#cost) : seconds;
    this.#measured = true;
  }

  #busy(): SessionAuthError {
    // When the queue as it stands should have drained: a client that waits that long finds room.
    const drain = Math.ceil(((this.#waiting + this.#running) / this.#options.concurrency) * this.#cost);
    return new SessionAuthError("ERR_LOGIN_BUSY", undefined, { retryAfter: Math.max(1, Math.min(drain, Math.ceil(this.#options.maxWait))) });
  }
}
