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

/** Logins held only by attempts in flight on their counter, one line per counter; the first looks again when one settles or every `pollMs`. */
export class HeldLogins {
  readonly #lines = new Map<string, Line>();
  readonly #maxWaiting: number;
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
    this.#pollMs = pollMs;
    this.#retryAfter = retryAfter;
  }

  /** Logins held now: for tests and health checks. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Waits for a turn on the counter `key`, until `deadline` (`performance.now()` milliseconds);
   * `again` for a login that waited before (it goes first).
   * @throws SessionAuthError `ERR_LOGIN_BUSY` at the deadline, or at once when the lines are full.
   */
  wait(key: string, deadline: number, again: boolean): Promise<void> {
    const left = deadline - performance.now();
    if (left <= 0 || this.#waiting >= this.#maxWaiting) return Promise.reject(this.#busy());
    let line = this.#lines.get(key);
    if (line === undefined) this.#lines.set(key, (line = { held: [], poll: undefined }));
    const queue = line;
    return new Promise<void>((resolve, reject) => {
      const held: Held = {
        go: () => {
          clearTimeout(held.timer);
          resolve();
        },
        // Unref'd: a login still waiting must not keep a stopping process alive.
        timer: setTimeout(() => {
          this.#remove(key, queue, held);
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
