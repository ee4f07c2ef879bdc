import { randomBytes } from "node:crypto";
import type { ProcessLocal, StoredSession, UserRecord } from "../types.js";

/**
 * This package's own memory stores, by identity: their calls answer from this process's
 * memory and wait on nothing (no I/O, no thread pool), so `storeTimeout` does not watch them.
 * A set of instances rather than a declaration: a copy or a wrapper of one (a spread, a
 * Proxy) may wait on anything, and another store that declares `processLocal` (the
 * sealed-cookie store over memory revocations waits on WebCrypto) is still timed.
 */
const answeringInProcess = new WeakMap<object, { readonly immediate: ImmediateRead | undefined; readonly method: unknown; readonly ready: unknown }>();

/**
 * The read a memory store answers at once, without a promise, and the method it stands for:
 * the session store's `get` or the user store's `findById`. It answers as that method would,
 * or `undefined` when it cannot answer yet (a user store still hashing its start-up passwords).
 */
export type ImmediateRead = { readonly [M in keyof ImmediateMethods]: { readonly method: M; readonly read: ImmediateMethods[M] } }[keyof ImmediateMethods];

/** The store methods a memory store may answer at once, and how. */
interface ImmediateMethods {
  /** As `get` at `now` (whole Unix seconds). */
  readonly get: (sessid: string, now: number) => StoredSession | null;
  readonly findById: (uid: string) => UserRecord | null | undefined;
}

/** Marks one of this package's memory stores as answering in process (see {@link answersInProcess}), with its immediate read if it has one; returns it. */
export function answeredInProcess<T extends object>(store: T, immediate?: ImmediateRead): T {
  const own = store as Record<string, unknown>;
  answeringInProcess.set(store, { immediate, method: immediate === undefined ? undefined : own[immediate.method], ready: own.ready });
  return store;
}

/** Whether `store` is one of this package's memory stores itself (not a copy or a wrapper of one). */
export function answersInProcess(store: object): boolean {
  return answeringInProcess.has(store);
}

/**
 * The immediate read of one of this package's memory stores, for the method it stands for;
 * `undefined` for any other store, and for one whose method or `ready` was replaced after it
 * was made (the replacement is what must answer, or be waited for, then).
 */
export function immediateRead<M extends keyof ImmediateMethods>(store: object, method: M): ImmediateMethods[M] | undefined {
  const marked = answeringInProcess.get(store);
  const own = store as Record<string, unknown>;
  if (marked?.immediate === undefined || marked.immediate.method !== method || own[method] !== marked.method || own.ready !== marked.ready) return undefined;
  return marked.immediate.read as ImmediateMethods[M];
}

/** The declaration of a store held in this process's memory: a fresh random generation that no other instance shares. */
export function processLocal(): ProcessLocal {
  return Object.freeze({ generation: randomBytes(9).toString("base64url") });
}
