/** Response headers: one value per name, or several for `Set-Cookie`. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[]>>;

/** No header: shared and frozen, as most replies to an app's own route carry none of the package's. */
export const NO_HEADERS: HeaderRecord = Object.freeze({});

/**
 * A `Vary` value with `added`'s names after `had`'s, each once (case-insensitive): CORS's `Origin`
 * and the endpoint's `Accept` both belong on one reply, whichever came first.
 *
 * @example
 * ```ts
 * mergeVary("Origin", "Accept, origin"); // "Origin, Accept"
 * ```
 */
export function mergeVary(had: string | undefined, added: string): string {
  if (had === undefined || had === "") return added;
  const names: string[] = [];
  const seen = new Set<string>();
  for (const name of `${had},${added}`.split(",")) {
    const trimmed = name.trim();
    const key = trimmed.toLowerCase();
    if (trimmed === "" || seen.has(key)) continue;
    seen.add(key);
    names.push(trimmed);
  }
  return names.join(", ");
}

/** `extra` added to `base`: values replaced, `Vary` merged, `Set-Cookie` appended; `base` itself if nothing to add. */
export function mergeHeaders(base: HeaderRecord, extra: HeaderRecord | undefined): HeaderRecord {
  if (extra === undefined || extra === NO_HEADERS) return base;
  let merged: Record<string, string | readonly string[]> | undefined;
  for (const name in extra) {
    merged ??= { ...base };
    const value = extra[name]!;
    const had = merged[name];
    if (name === "Vary" && typeof had === "string" && typeof value === "string") merged[name] = mergeVary(had, value);
    else if (name === "Set-Cookie" && had !== undefined) merged[name] = [...toList(had), ...toList(value)];
    else merged[name] = value;
  }
  return merged ?? base;
}

function toList(value: string | readonly string[]): readonly string[] {
  return typeof value === "string" ? [value] : value;
}

/** A framework's own setters for one reply's headers, which {@link writeHeaders} feeds. */
export interface HeaderSetter {
  /** The value a header already has on the reply, for `Vary` to merge with; `undefined` for none. */
  get(name: string): string | null | undefined;
  set(name: string, value: string): void;
  /** Adds one more value (a `Set-Cookie`), keeping those already there. */
  append(name: string, value: string): void;
}

/** Writes `headers` through a framework's setters: `Set-Cookie` appended, `Vary` merged after what the reply has, anything else set. */
export function writeHeaders(headers: HeaderRecord, to: HeaderSetter): void {
  for (const name in headers) {
    const value = headers[name]!;
    if (typeof value !== "string") for (const one of value) to.append(name, one);
    else to.set(name, name === "Vary" ? mergeVary(to.get(name) ?? undefined, value) : value);
  }
}
