import { randomBytes } from "node:crypto";
import type { ReadsAtOnce } from "../sessions/sessions.js";
import type { ProcessLocal } from "../types.js";

/** The store method each read at once stands for. */
const METHOD_OF = { session: "get", user: "findById" } as const;

interface Marked {
  readonly atOnce: ReadsAtOnce;
  /** The store's read methods when it was marked. */
  readonly methods: { readonly [read in keyof ReadsAtOnce]: unknown };
}

/** This package's memory stores by identity (a copy or wrapper may wait): they wait on nothing, so are not timed. */
const answeringInProcess = new WeakMap<object, Marked>();

/** Marks one of this package's memory stores as answering in process (see {@link answersInProcess}), with the reads it answers at once; returns it. */
export function answeredInProcess<T extends object>(store: T, atOnce: ReadsAtOnce = {}): T {
  const methods = { session: (store as Record<string, unknown>)[METHOD_OF.session], user: (store as Record<string, unknown>)[METHOD_OF.user] };
  answeringInProcess.set(store, { atOnce, methods });
  return store;
}

/** Whether `store` is one of this package's memory stores itself (not a copy or a wrapper of one). */
export function answersInProcess(store: object): boolean {
  return answeringInProcess.has(store);
}

/** The reads `store` answers at once, when it is one of this package's memory stores itself; a method replaced since (a spy, an app's wrapper) is read through, never around. */
export function readsAtOnce(store: object): ReadsAtOnce {
  const marked = answeringInProcess.get(store);
  if (marked === undefined) return {};
  const kept = (read: keyof ReadsAtOnce): boolean => (store as Record<string, unknown>)[METHOD_OF[read]] === marked.methods[read];
  return { session: kept("session") ? marked.atOnce.session : undefined, user: kept("user") ? marked.atOnce.user : undefined };
}

/** The declaration of a store held in this process's memory: a fresh random generation that no other instance shares. */
export function processLocal(): ProcessLocal {
  return Object.freeze({ generation: randomBytes(9).toString("base64url") });
}
