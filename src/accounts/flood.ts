import { nowSeconds } from "../clock.js";

/**
 * Drupal 7's flood control (`flood_register_event()`, `flood_is_allowed()`, `flood_clear_event()`)
 * as a store: events counted by name and identifier in a sliding window. `drupal7Flood({ pool })`
 * from `services-session-auth/drupal` is one, over Drupal's own `flood` table.
 *
 * @example
 * ```ts
 * const flood: FloodStore = memoryFloodStore();
 * if (!(await flood.isAllowed("pass_reset_ip", 50, 3600, "203.0.113.7"))) throw new Error("too many");
 * await flood.register("pass_reset_ip", "203.0.113.7", 3600);
 * ```
 */
export interface FloodStore {
  /** `flood_is_allowed()`: whether fewer than `threshold` events of this name and identifier happened in the last `window` seconds. */
  isAllowed(event: string, threshold: number, window: number, identifier: string): Promise<boolean>;
  /** Records one event, kept `window` seconds. */
  register(event: string, identifier: string, window: number): Promise<void>;
  /** Forgets every event of this name and identifier. */
  clear(event: string, identifier: string): Promise<void>;
}

/** Most identifiers kept: past it, the one touched longest ago is forgotten. */
const MAX_KEYS = 100_000;

/**
 * A {@link FloodStore} in this process's memory, bounded (100,000 identifiers, each event kept until
 * its window passes): for one instance; several instances share Drupal's `flood` table or a store of the app's.
 */
export function memoryFloodStore(): FloodStore {
  // Per key, [registered at, expires at]; insertion order is last-touched order (a touched key is set again).
  const events = new Map<string, Array<readonly [number, number]>>();
  const touch = (key: string, now: number): Array<readonly [number, number]> => {
    const kept = (events.get(key) ?? []).filter(([, expires]) => expires > now);
    events.delete(key);
    if (kept.length > 0) events.set(key, kept);
    return kept;
  };
  return {
    async isAllowed(event, threshold, window, identifier) {
      const now = nowSeconds();
      return touch(`${event}\0${identifier}`, now).filter(([at]) => at > now - window).length < threshold;
    },
    async register(event, identifier, window) {
      const key = `${event}\0${identifier}`;
      const now = nowSeconds();
      events.set(key, [...touch(key, now), [now, now + window]]);
      while (events.size > MAX_KEYS) events.delete(events.keys().next().value!);
    },
    async clear(event, identifier) {
      events.delete(`${event}\0${identifier}`);
    },
  };
}
