/**
 * Heap per live session at 100k sessions, this package's memory store against
 * express-session's MemoryStore, and the longest the memory store's expiry sweep holds the
 * event loop. Run with `node --expose-gc --import tsx bench/memory.ts`.
 */
import session from "express-session";
import { createSessionId, memorySessionStore, type SessionRecord } from "services-session-auth";

const COUNT = 100_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");

// A handful of clients, as behind one office NAT or one app version.
const userAgents = ["Mozilla/5.0 (X11; Linux x86_64) Firefox/132.0", "SportsApp/3.2 (iPhone; iOS 18.1)", "okhttp/4.12.0"];
const now = Math.floor(Date.now() / 1000);

function heap(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().heapUsed;
}

function record(i: number, expiresAt: number): SessionRecord {
  return { uid: String((i % 5000) + 1), createdAt: now, lastSeenAt: now, expiresAt, ip: `10.0.${i % 16}.${i % 200}`, userAgent: userAgents[i % 3]! };
}

async function ours(): Promise<number> {
  const before = heap();
  const store = memorySessionStore({ maxSessions: COUNT });
  for (let i = 0; i < COUNT; i++) await store.create(record(i, now + 3600));
  const after = heap();
  if (store.size !== COUNT) throw new Error(`expected ${COUNT} sessions, have ${store.size}`);
  store.close();
  return (after - before) / COUNT;
}

async function expressSession(): Promise<number> {
  const before = heap();
  const store = new session.MemoryStore();
  for (let i = 0; i < COUNT; i++) {
    const sid = createSessionId().slice(0, 32);
    // What express-session keeps after a login: its cookie and the app's user id.
    const data = { cookie: { originalMaxAge: null, expires: null, httpOnly: true, path: "/" }, uid: String((i % 5000) + 1) } as unknown as session.SessionData;
    await new Promise<void>((done) => store.set(sid, data, () => done()));
  }
  const after = heap();
  const count = await new Promise<number>((done) => store.length((_error, length) => done(length ?? 0)));
  if (count !== COUNT) throw new Error(`expected ${COUNT} sessions, have ${count}`);
  return (after - before) / COUNT;
}

/** The longest single stretch the sweep keeps the loop busy, with every session expired. */
async function longestSweepSlice(): Promise<{ removed: number; maxMs: number; totalMs: number }> {
  const store = memorySessionStore({ maxSessions: COUNT, sweepIntervalSeconds: 3600 });
  for (let i = 0; i < COUNT; i++) await store.create(record(i, now - 1));
  let maxMs = 0;
  let last = performance.now();
  let sweeping = true;
  const tick = () => {
    const at = performance.now();
    maxMs = Math.max(maxMs, at - last);
    last = at;
    if (sweeping) setImmediate(tick);
  };
  const started = performance.now();
  setImmediate(tick);
  const removed = await store.sweep();
  sweeping = false;
  const totalMs = performance.now() - started;
  store.close();
  return { removed, maxMs, totalMs };
}

const oursBytes = await ours();
const theirsBytes = await expressSession();
const sweep = await longestSweepSlice();
console.log(`  memory store (this package):   ${oursBytes.toFixed(0)} bytes per live session at ${COUNT.toLocaleString("en")} sessions`);
console.log(`  express-session MemoryStore:   ${theirsBytes.toFixed(0)} bytes per live session at ${COUNT.toLocaleString("en")} sessions`);
console.log(`  expiry sweep of ${sweep.removed.toLocaleString("en")} expired sessions: ${sweep.totalMs.toFixed(0)} ms in all, longest block of the event loop ${sweep.maxMs.toFixed(1)} ms`);
console.log(`  ${oursBytes <= 300 ? "MET   " : "MISSED"} memory store ≤ 300 bytes per live session: ${oursBytes.toFixed(0)}`);
console.log(`  ${sweep.maxMs <= 5 ? "MET   " : "MISSED"} expiry sweep blocks the loop ≤ 5 ms: ${sweep.maxMs.toFixed(1)} ms`);
