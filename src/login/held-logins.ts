import { SessionAuthError } from "../errors.js";

interface Held {
  readonly go: () => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** One throttle counter's waiting logins, oldest first, and the timer that lets the first look again. */
interface Line {
  readonly held: Held[];
  poll: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Logins held only by attempts in flight on their counter, one line per counter; the first looks
 * again when one settles or every `pollMs`. At most `maxWaiting` at once, and at most a sixteenth
 * of that (16 at least) from one client address, so one address cannot fill the lines others need.
 */
export class HeldLogins {
  readonly #lines = new Map<string, Line>();
  /** Logins held per client address (its group: an IPv6 /64). */
  readonly #perAddress = new Map<string, number>();
  readonly #maxWaiting: number;
  readonly #maxPerAddress: number;
  readonly #pollMs: () => number;
  readonly #retryAfter: () => number;
  #waiting = 0;

  /**
   * @param maxWaiting - The most logins held at once in this process.
   * @param pollMs - How often the first of a line looks again without being woken, asked each time.
   * @param retryAfter - The seconds a refused login is told to wait: about one check's time.
   */
  constructor(maxWaiting: number, pollMs: () => number, retryAfter: () => number) {
    this.#maxWaiting = maxWaiting;
    this.#maxPerAddress = Math.min(maxWaiting, Math.max(16, Math.floor(maxWaiting / 16)));
    this.#pollMs = pollMs;
    this.#retryAfter = retryAfter;
  }

  /** Logins held now: for tests and health checks. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Waits for a turn on the counter `key`, until `deadline` (`performance.now()` milliseconds);
   * `again` for a login that waited before (it goes first); `address` is the client's (none: no per-address cap).
   * @throws SessionAuthError `ERR_LOGIN_BUSY` at the deadline, or at once when the lines, or the address's share, are full.
   */
  wait(key: string, deadline: number, again: boolean, address?: string): Promise<void> {
    const left = deadline - performance.now();
    const fromAddress = address === undefined ? 0 : (this.#perAddress.get(address) ?? 0);
    if (left <= 0 || this.#waiting >= this.#maxWaiting || fromAddress >= this.#maxPerAddress) return Promise.reject(this.#busy());
    if (address !== undefined) this.#perAddress.set(address, fromAddress + 1);
    const leave = () => {
      if (address === undefined) return;
      const count = (this.#perAddress.get(address) ?? 1) - 1;
      if (count > 0) this.#perAddress.set(address, count);
      else this.#perAddress.delete(address);
    };
    let line = this.#lines.get(key);
    if (line === undefined) this.#lines.set(key, (line = { held: [], poll: undefined }));
    const queue = line;
    return new Promise<void>((resolve, reject) => {
      const held: Held = {
        go: () => {
          clearTimeout(held.timer);
          leave();
          resolve();
        },
        // Unref'd: a login still waiting must not keep a stopping process alive.
        timer: setTimeout(() => {
          this.#remove(key, queue, held);
          leave();
          reject(this.#busy());
        }, left).unref(),
      };
      if (again) queue.held.unshift(held);
      else queue.held.push(held);
      this.#waiting += 1;
      queue.poll ??= setTimeout(() => this.settled(key), this.#pollMs()).unref();
    });
  }

  /** An attempt on `key` settled here (or a held login went on): the first login waiting on it tries again. */
  settled(key: string): void {
    const line = this.#lines.get(key);
    if (line === undefined) return;
    clearTimeout(line.poll);
    line.poll = undefined;
    const first = line.held.shift();
    if (first === undefined) return;
    this.#waiting -= 1;
    if (line.held.length === 0) this.#lines.delete(key);
    else line.poll = setTimeout(() => this.settled(key), this.#pollMs()).unref();
    first.go();
  }

  #remove(key: string, line: Line, held: Held): void {
    const at = line.held.indexOf(held);
    if (at === -1) return;
    line.held.splice(at, 1);
    this.#waiting -= 1;
    if (line.held.length > 0) return;
    clearTimeout(line.poll);
    if (this.#lines.get(key) === line) this.#lines.delete(key);
  }

  #busy(): SessionAuthError {
    return new SessionAuthError("ERR_LOGIN_BUSY", undefined, { retryAfter: this.#retryAfter() });
  }
}
