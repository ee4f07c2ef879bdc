/**
 * When the stores over Drupal's tables sweep: once within a minute of the start, then every
 * `gcInterval` seconds (±25 %, a random offset per instance), never with `gcInterval: 0`, and
 * no more once closed. Counted on a pool that only records the statements it is sent.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { drupal7FloodCounterStore, drupal7SessionStore, type MysqlPoolLike, type SqlValue } from "services-session-auth/drupal";

function recordingPool() {
  const sent: string[] = [];
  const pool: MysqlPoolLike = {
    async execute(sql: string, _values: SqlValue[]) {
      sent.push(sql);
      return sql.startsWith("SELECT") ? [[], []] : [{ affectedRows: 0 }, []];
    },
    getConnection: async () => ({}),
  };
  return { pool, sweeps: () => sent.filter((sql) => /^DELETE .* LIMIT \?$/.test(sql)).length };
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

it.each([
  ["drupal7SessionStore", (pool: MysqlPoolLike, gcInterval: number) => drupal7SessionStore({ pool, gcInterval })],
  ["drupal7FloodCounterStore", (pool: MysqlPoolLike, gcInterval: number) => drupal7FloodCounterStore({ pool, gcInterval })],
])("%s sweeps within a minute of its start, then once per interval, and not once closed", async (_name, make) => {
  const { pool, sweeps } = recordingPool();
  const store = make(pool, 900);
  await vi.advanceTimersByTimeAsync(60_000);
  expect(sweeps()).toBe(1);
  await vi.advanceTimersByTimeAsync(600_000);
  expect(sweeps()).toBe(1);
  await vi.advanceTimersByTimeAsync(600_000);
  expect(sweeps()).toBe(2);
  store.close();
  await vi.advanceTimersByTimeAsync(3_600_000);
  expect(sweeps()).toBe(2);
  const off = recordingPool();
  make(off.pool, 0);
  await vi.advanceTimersByTimeAsync(3_600_000);
  expect(off.sweeps()).toBe(0);
});
