import type { CounterStore, PasswordHasher } from "services-session-auth";
import { fastHasher } from "./app.js";

/**
 * Slow password checks without a clock: every check waits at a gate that opens once
 * `arrivals` login attempts have been counted against their address (each attempt is, first,
 * whatever comes of it), or when the test opens it. A burst is then in flight together however
 * fast or slow the machine is. `counting` wraps each counter store that counts them (several
 * instances may share one gate); `verified` records the passwords checked.
 */
export function arrivalGate(arrivals: number) {
  const verified: string[] = [];
  let counted = 0;
  let open = (): void => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const hasher: PasswordHasher = {
    ...fastHasher,
    verify: async (hash, password) => {
      verified.push(password);
      await gate;
      return fastHasher.verify(hash, password);
    },
  };
  return {
    hasher,
    verified,
    open: () => open(),
    counting: (inner: CounterStore): CounterStore => ({
      ...inner,
      increment: async (key, ttl) => {
        const count = await inner.increment(key, ttl);
        if (key.startsWith("ip:") && ++counted >= arrivals) open();
        return count;
      },
    }),
  };
}
