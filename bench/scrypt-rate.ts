/**
 * The raw `crypto.scrypt` rate on this machine, with the default hasher's parameters and as
 * many calls in flight as libuv has threads: `node --import tsx bench/scrypt-rate.ts <seconds>`.
 * Prints one JSON line: hashes per second.
 */
import { randomBytes, scrypt } from "node:crypto";

const seconds = Number(process.argv[2] ?? "5");
const N = 2 ** 17;
const r = 8;
const p = 1;
const options = { N, r, p, maxmem: 128 * N * r * 2 };
const inFlight = Number(process.env.UV_THREADPOOL_SIZE ?? "4");

function once(): Promise<void> {
  return new Promise((resolve, reject) => scrypt("bench-password", randomBytes(16), 32, options, (error) => (error ? reject(error) : resolve())));
}

let done = 0;
let stopped = false;
const started = performance.now();
async function worker(): Promise<void> {
  while (!stopped) {
    await once();
    if (!stopped) done += 1;
  }
}
setTimeout(() => (stopped = true), seconds * 1000);
await Promise.all(Array.from({ length: inFlight }, worker));
const elapsed = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ rps: done / seconds, p50: 0, p99: 0, ok: done, bad: 0, elapsed })}\n`);
