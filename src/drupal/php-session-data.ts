import { walkPhpValue } from "./php-unserialize.js";

/**
 * `$_SESSION` as Drupal 7 keeps it in `sessions.session` (PHP's `php` serializer). Only the top
 * level is read, each value walked by the lengths PHP wrote, so text inside a value never passes
 * for an entry; any value PHP writes is walked, in time linear in its bytes.
 *
 * PHP numbers the values of all entries together (`r:3` and `R:3` point at the third value of the
 * whole `$_SESSION`), so an entry put in front of others shifts what their references point at:
 * {@link planSessionEntry} says how an entry goes in without changing what any reference means.
 *
 * @module
 */

/** One top-level `$_SESSION` entry: where its name starts, and where its value starts and ends. */
export interface SessionEntry {
  readonly name: string;
  readonly start: number;
  readonly valueStart: number;
  readonly end: number;
  /** Values PHP numbered in it. */
  readonly numbered: number;
  /** `[start, end)` of each reference's number in it. */
  readonly references: ReadonlyArray<readonly [number, number]>;
  /** It holds a `C:` payload: what PHP numbered inside is unknown. */
  readonly custom: boolean;
}

/** The top-level entries of a `$_SESSION` serialization in order, or `null` when PHP's `php` serializer did not write it. */
export function sessionEntries(bytes: Buffer): SessionEntry[] | null {
  const entries: SessionEntry[] = [];
  let position = 0;
  while (position < bytes.length) {
    const bar = bytes.indexOf(0x7c, position);
    if (bar < 0) return null;
    const walked = walkPhpValue(bytes, bar + 1, true);
    if (walked === null) return null;
    entries.push({ name: bytes.toString("utf8", position, bar), start: position, valueStart: bar + 1, ...walked });
    position = walked.end;
  }
  return entries;
}

/**
 * How an entry goes into `$_SESSION` without changing what PHP's references mean:
 * - `replace`: the old entry's bytes `[start, end)` give way to the new ones (as many values: no reference moves);
 * - `prepend`: first, where nothing refers to a numbered value (the package's entries are found in a row's first bytes);
 * - `append`: last, where references cannot be shifted (a `C:` payload numbers values only its class knows);
 * - `rewrite`: first, with every reference after it shifted: the whole new `$_SESSION`.
 */
export type EntryPlan =
  | { readonly kind: "replace"; readonly start: number; readonly end: number; readonly entry: Buffer }
  | { readonly kind: "prepend" | "append"; readonly entry: Buffer }
  | { readonly kind: "rewrite"; readonly data: Buffer; readonly entry: Buffer };

/** Values PHP numbers in a serialized value this package writes (no references, no payloads). */
function numberedIn(value: string): number {
  return walkPhpValue(Buffer.from(value, "utf8"), 0, false)?.numbered ?? 0;
}

/**
 * The plan to set entry `name` to `value` (serialized, without references) in `bytes`; `null`
 * when `bytes` cannot be walked, or the entry cannot go in without changing a reference's meaning.
 */
export function planSessionEntry(bytes: Buffer, name: string, value: string): EntryPlan | null {
  if (name.includes("|")) throw new TypeError("a $_SESSION entry's name cannot contain |");
  const entries = sessionEntries(bytes);
  if (entries === null) return null;
  const entry = Buffer.from(`${name}|${value}`, "utf8");
  const count = numberedIn(value);
  const index = entries.findIndex((one) => one.name === name);
  if (index >= 0) {
    const old = entries[index]!;
    if (old.numbered === count && !old.custom && old.references.length === 0) return { kind: "replace", start: old.start, end: old.end, entry };
    return null;
  }
  if (entries.every((one) => one.references.length === 0)) return { kind: "prepend", entry };
  if (entries.some((one) => one.custom)) return { kind: "append", entry };
  return { kind: "rewrite", data: Buffer.concat([entry, shiftedReferences(bytes, entries, count)]), entry };
}

/** `bytes` with every reference's number raised by `shift`, as after `shift` values were put in front. */
function shiftedReferences(bytes: Buffer, entries: readonly SessionEntry[], shift: number): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const { references } of entries) {
    for (const [start, end] of references) {
      parts.push(bytes.subarray(from, start), Buffer.from(String(Number(bytes.toString("latin1", start, end)) + shift), "latin1"));
      from = end;
    }
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/** `bytes` with the plan carried out: what the database holds after the store's statement ran. */
export function applyEntryPlan(bytes: Buffer, plan: EntryPlan): Buffer {
  switch (plan.kind) {
    case "replace":
      return Buffer.concat([bytes.subarray(0, plan.start), plan.entry, bytes.subarray(plan.end)]);
    case "prepend":
      return Buffer.concat([plan.entry, bytes]);
    case "append":
      return Buffer.concat([bytes, plan.entry]);
    case "rewrite":
      return plan.data;
  }
}

/** A PHP scalar or a flat array of them: all that the entries this package writes hold. */
export type PhpScalarRecord = Readonly<Record<string, string | number>>;

/** `serialize()` of a flat array of strings and integers, as PHP writes it (string lengths in UTF-8 bytes). */
export function phpSerializeRecord(record: PhpScalarRecord): string {
  const item = (value: string | number) => (typeof value === "number" ? `i:${Math.trunc(value)};` : `s:${Buffer.byteLength(value, "utf8")}:"${value}";`);
  const members = Object.entries(record).map(([key, value]) => item(key) + item(value));
  return `a:${members.length}:{${members.join("")}}`;
}

/**
 * `$_SESSION` with entry `name` set to `value` (serialized, without references): replaced in
 * place, or put first with the references after it shifted, or last where they cannot be; every
 * other entry means what it meant. `null` when `bytes` cannot be walked.
 *
 * @example
 * ```ts
 * withSessionEntry(Buffer.from("messages|a:0:{}"), "mine", "i:1;"); // "mine|i:1;messages|a:0:{}"
 * ```
 */
export function withSessionEntry(bytes: Buffer, name: string, value: string): Buffer | null {
  const plan = planSessionEntry(bytes, name, value);
  return plan === null ? null : applyEntryPlan(bytes, plan);
}
