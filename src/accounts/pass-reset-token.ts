import { createHmac } from "node:crypto";
import type { CounterStore } from "../types.js";
import { hashSessionId, safeEqual } from "../sessions/session-id.js";

/**
 * The `pass_reset_<uid>` token a used one-time link gives its session (Drupal keeps a random one in
 * `$_SESSION`): here a MAC of the session, the account and a generation counted in the counter
 * store, odd while the token is live (given, its password not yet saved), even once spent. A token
 * of another session, another account or another generation is worthless, and none comes back.
 */
export class PassResetTokens {
  readonly #key: Buffer;
  readonly #counters: CounterStore;
  readonly #lifetime: number;

  constructor(key: Buffer, counters: CounterStore, lifetime: number) {
    this.#key = key;
    this.#counters = counters;
    this.#lifetime = lifetime;
  }

  #mark(sessid: string, uid: string): string {
    return `pass-reset:${hashSessionId(sessid)}:${uid}`;
  }

  #token(sessid: string, uid: string, generation: number): string {
    return createHmac("sha256", this.#key)
      .update(`${hashSessionId(sessid)}:${uid}:${generation}`)
      .digest("base64url");
  }

  /** Gives a session a new token for an account (the one it had is spent), for the session's longest life. */
  async issue(sessid: string, uid: string): Promise<string> {
    const mark = this.#mark(sessid, uid);
    let generation = await this.#counters.increment(mark, this.#lifetime);
    if (generation % 2 === 0) generation = await this.#counters.increment(mark, this.#lifetime);
    return this.#token(sessid, uid, generation);
  }

  /** Whether `token` is this session's live token for the account. */
  async valid(sessid: string, uid: string, token: string | undefined): Promise<boolean> {
    if (token === undefined || token === "") return false;
    const generation = await this.#counters.get(this.#mark(sessid, uid));
    return generation % 2 === 1 && safeEqual(token, this.#token(sessid, uid, generation));
  }

  /** The new password is saved: the token is spent (`unset($_SESSION['pass_reset_<uid>'])`). */
  async spend(sessid: string, uid: string): Promise<void> {
    const mark = this.#mark(sessid, uid);
    if ((await this.#counters.get(mark)) % 2 === 1) await this.#counters.increment(mark, this.#lifetime);
  }
}
