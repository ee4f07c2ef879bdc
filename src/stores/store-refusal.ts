/**
 * Why a store turned a call away at once, without sending it: more calls than its connections can
 * serve in time (`shed`), or its connection is down, being replaced, or silent (`offline`).
 */
export type RefusalReason = "shed" | "offline";

/** A store call refused before it reached the backend: the request gets the usual 503, at once instead of after `storeTimeout`. */
export class StoreRefusal extends Error {
  override readonly name = "StoreRefusal";
  readonly reason: RefusalReason;

  constructor(reason: RefusalReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Whether `error` is a {@link StoreRefusal}, across the ESM and CJS copies of the class. */
export function isStoreRefusal(error: unknown): error is StoreRefusal {
  return error instanceof Error && error.name === "StoreRefusal" && typeof (error as StoreRefusal).reason === "string";
}

/** A store call that outlived `storeTimeout`: the request got a 503, and what the call did is undone if it lands. */
export class StoreTimeout extends Error {
  override readonly name = "StoreTimeout";
}
