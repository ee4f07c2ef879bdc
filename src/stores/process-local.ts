import { randomBytes } from "node:crypto";
import type { ProcessLocal } from "../types.js";

/** This package's memory stores by identity (a copy or wrapper may wait): they wait on nothing, so are not timed. */
const answeringInProcess = new WeakSet<object>();

/** Marks one of this package's memory stores as answering in process (see {@link answersInProcess}); returns it. */
export function answeredInProcess<T extends object>(store: T): T {
  answeringInProcess.add(store);
  return store;
}

/** Whether `store` is one of this package's memory stores itself (not a copy or a wrapper of one). */
export function answersInProcess(store: object): boolean {
  return answeringInProcess.has(store);
}

/** The declaration of a store held in this process's memory: a fresh random generation that no other instance shares. */
export function processLocal(): ProcessLocal {
  return Object.freeze({ generation: randomBytes(9).toString("base64url") });
}
