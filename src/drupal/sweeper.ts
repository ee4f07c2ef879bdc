/**
 * The periodic garbage collection of the kit's stores: one bounded sweep soon after the start,
 * then every `interval` seconds, each instance at a random offset (so many instances spread
 * their sweeps instead of meeting), never two at once in one process; a failed sweep waits for the next.
 *
 * @module
 */

/** A running sweep schedule. */
export interface Sweeper {
  stop(): void;
}

/** The first sweep comes within this many seconds of the start (at most an interval): a table left to grow is not left long. */
const FIRST_SWEEP_WITHIN = 60;

/** Runs `sweep` every `interval` seconds (±25 %), the first one at a random moment of the first minute; the timers never keep a process alive. */
export function sweeper(sweep: () => Promise<unknown>, interval: number): Sweeper {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const schedule = (seconds: number) => {
    if (stopped) return;
    timer = setTimeout(run, Math.round(seconds * 1000));
    timer.unref?.();
  };
  const run = () => {
    sweep()
      .catch(() => undefined)
      .finally(() => schedule(interval * (0.75 + Math.random() / 2)));
  };
  schedule(Math.random() * Math.min(interval, FIRST_SWEEP_WITHIN));
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The most statements one sweep sends: a sweep never holds the table long, whatever is left for the next. */
const MAX_BATCHES = 10;

/** One sweep: `deleteBatch` (which deletes at most `batch` rows) until it deletes fewer, at most ten times; resolves how many rows went. */
export async function sweepInBatches(deleteBatch: () => Promise<number>, batch: number): Promise<number> {
  let deleted = 0;
  for (let round = 0; round < MAX_BATCHES; round++) {
    const removed = await deleteBatch();
    deleted += removed;
    if (removed < batch) break;
  }
  return deleted;
}
