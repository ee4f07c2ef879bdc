import { StoreRefusal } from "../stores/store-refusal.js";

/** A query's parameters, as the kit sends them (`SqlValue`s). */
type Values = readonly unknown[];

/**
 * How the kit's queries reach a pool without outliving their requests or one another: a bounded
 * number at once (the pool's size, writes at most half of it, so writes blocked on a lock never
 * take the connections reads need); a query that cannot start in time is refused at once; one
 * not started by its deadline never is; one still running at its deadline is given until twice
 * that if the database answers others meanwhile (a late result is then undone by the caller), and
 * is otherwise ended on the server, its connection dropped, and every connection as old replaced
 * (a black-holed pool). docs/running-beside-drupal-7.md and docs/scaling-out.md#outages.
 *
 * @module
 */

/** Whether a query reads or writes: writes have a lane of their own. */
export type QueryKind = "read" | "write";

/** One checked-out connection of a driver. */
export interface DriverConnection {
  /** The raw connection object, for its birth time. */
  readonly raw: object;
  /** The server's id of the connection (MySQL's thread id, PostgreSQL's backend pid), to end it there. */
  readonly serverId: number | undefined;
  run(sql: string, values: Values, timeoutMs: number): Promise<unknown>;
  /** Gives the connection back, or drops it (`broken`). */
  release(broken: boolean): void;
}

/** What the gate needs of a driver's pool. */
export interface Driver {
  /** Connections in the pool at most. */
  readonly capacity: number;
  checkout(): Promise<DriverConnection>;
  /** Ends a connection on the server, from another connection. */
  end(serverId: number): Promise<unknown>;
  /** Calls `seen` with each new raw connection as the pool opens it. */
  onConnection(seen: (raw: object) => void): void;
  /** Whether a query error means the connection cannot be used again. */
  broken(error: unknown): boolean;
}

interface Waiter {
  readonly deadline: number;
  readonly start: () => void;
  readonly drop: (error: Error) => void;
}

/** How fast the estimate of a query's time follows new measurements. */
const SMOOTHING = 0.2;
/** How many times ending a connection on the server is tried. */
const END_TRIES = 3;

/** One pool's gate, shared by every store of the kit over that pool. */
export class QueryGate {
  readonly #driver: Driver;
  readonly #capacity: number;
  readonly #writeCap: number;
  readonly #running = { read: 0, write: 0 };
  readonly #queues: Record<QueryKind, Waiter[]> = { read: [], write: [] };
  readonly #cost = { read: 5, write: 5 };
  readonly #births = new WeakMap<object, number>();
  /** When a query last came back on this pool: a pool that answers others is slow, not dead. */
  #lastAnswer = performance.now();
  /** Connections opened before this are replaced when next checked out. */
  #retireBefore = -Infinity;
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(driver: Driver) {
    this.#driver = driver;
    this.#capacity = Math.max(1, driver.capacity);
    this.#writeCap = Math.max(1, Math.floor(this.#capacity / 2));
    driver.onConnection((raw) => this.#births.set(raw, performance.now()));
  }

  /** Queries running and waiting now: for tests and health checks. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.#running.read + this.#running.write, waiting: this.#queues.read.length + this.#queues.write.length };
  }

  /**
   * Runs one query within `timeoutMs` of now.
   * @throws StoreRefusal `shed` when it cannot start in time; an Error when it outlives its time.
   */
  async run(kind: QueryKind, sql: string, values: Values, timeoutMs: number): Promise<unknown> {
    const asked = performance.now();
    const deadline = asked + timeoutMs;
    await this.#admit(kind, deadline);
    try {
      const connection = await this.#checkout(deadline);
      return await this.#query(kind, connection, sql, values, deadline, deadline + timeoutMs);
    } finally {
      this.#running[kind] -= 1;
      this.#next();
    }
  }

  #free(kind: QueryKind): boolean {
    const total = this.#running.read + this.#running.write;
    return total < this.#capacity && (kind === "read" || this.#running.write < this.#writeCap);
  }

  #admit(kind: QueryKind, deadline: number): Promise<void> {
    const queue = this.#queues[kind];
    if (queue.length === 0 && this.#free(kind)) {
      this.#running[kind] += 1;
      return Promise.resolve();
    }
    // The wait ahead, from the lane's width and what its queries take: past most of the time left, refused now.
    const width = kind === "write" ? this.#writeCap : this.#capacity - Math.min(this.#running.write, this.#writeCap);
    const wait = ((queue.length + 1) / Math.max(1, width)) * this.#cost[kind];
    if (wait > (deadline - performance.now()) * 0.8) {
      return Promise.reject(new StoreRefusal("shed", `more ${kind}s than the pool can serve in time`));
    }
    return new Promise<void>((resolve, reject) => {
      queue.push({ deadline, start: resolve, drop: reject });
      this.#ticker ??= setInterval(() => this.#expire(), 50);
      this.#ticker.unref?.();
    });
  }

  /** Drops waiters whose deadline passed: their requests were answered, so they are never sent. */
  #expire(): void {
    const now = performance.now();
    for (const queue of Object.values(this.#queues)) {
      while (queue.length > 0 && queue[0]!.deadline <= now) queue.shift()!.drop(new StoreRefusal("shed", "the query could not start before its deadline"));
    }
    if (this.#queues.read.length === 0 && this.#queues.write.length === 0) {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
    }
  }

  /** Starts the next waiter: a write while its lane has room, else a read. */
  #next(): void {
    for (const kind of ["write", "read"] as const) {
      const queue = this.#queues[kind];
      while (queue.length > 0 && this.#free(kind)) {
        const waiter = queue.shift()!;
        if (waiter.deadline <= performance.now()) {
          waiter.drop(new StoreRefusal("shed", "the query could not start before its deadline"));
          continue;
        }
        this.#running[kind] += 1;
        waiter.start();
      }
    }
  }

  /** A connection by the deadline, never one opened before the pool was last found silent. */
  async #checkout(deadline: number): Promise<DriverConnection> {
    for (let tries = 0; tries <= this.#capacity; tries++) {
      const connection = await beforeDeadline(this.#driver.checkout(), deadline, (late) => late.release(false));
      if ((this.#births.get(connection.raw) ?? -Infinity) >= this.#retireBefore) return connection;
      connection.release(true);
    }
    throw new Error("no connection opened since the pool was last found silent");
  }

  async #query(kind: QueryKind, connection: DriverConnection, sql: string, values: Values, deadline: number, hardDeadline: number): Promise<unknown> {
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    // The driver's own timeout is the backstop, a second after this gate's: the gate's ends the statement on the server too.
    const pending = connection.run(sql, values, hardDeadline - started + 1000);
    const outcome = new Promise<unknown>((resolve, reject) => {
      const giveUp = (why: string) => {
        settled = true;
        this.#measure(kind, started);
        connection.release(true);
        this.#end(connection.serverId);
        reject(new Error(why));
      };
      timer = setTimeout(
        () => {
          if (settled) return;
          // Nothing came back on the whole pool since this query went: the connections are dead, not slow.
          if (this.#lastAnswer < started) {
            this.#retireBefore = performance.now();
            return giveUp("the database did not answer");
          }
          timer = setTimeout(() => settled || giveUp("the query outlived twice its deadline"), Math.max(0, hardDeadline - performance.now()));
        },
        Math.max(0, deadline - started),
      );
      pending.then(
        (value) => {
          if (settled) return;
          settled = true;
          this.#answered(kind, started);
          connection.release(false);
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          const broken = this.#driver.broken(error);
          if (!broken) this.#answered(kind, started);
          connection.release(broken);
          reject(error);
        },
      );
    });
    try {
      return await outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  #answered(kind: QueryKind, started: number): void {
    this.#lastAnswer = performance.now();
    this.#measure(kind, started);
  }

  /** What a query of this kind takes: answered or given up, so a lane whose queries hang is soon refused at once. */
  #measure(kind: QueryKind, started: number): void {
    this.#cost[kind] += SMOOTHING * (performance.now() - started - this.#cost[kind]);
  }

  /** Ends a connection on the server, so a statement it was sent never runs late; a few tries, none awaited. */
  #end(serverId: number | undefined): void {
    if (serverId === undefined) return;
    const attempt = (left: number): void => {
      this.#driver.end(serverId).catch(() => {
        if (left > 1) setTimeout(() => attempt(left - 1), 1000).unref?.();
      });
    };
    attempt(END_TRIES);
  }
}

/** `pending`, or a rejection at `deadline`; what it resolves after that goes to `late`. */
function beforeDeadline<T>(pending: Promise<T>, deadline: number, late: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(
      () => {
        expired = true;
        reject(new Error("no connection before the deadline"));
      },
      Math.max(0, deadline - performance.now()),
    );
    pending.then(
      (value) => {
        clearTimeout(timer);
        if (expired) late(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!expired) reject(error);
      },
    );
  });
}
