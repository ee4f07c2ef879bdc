import { z } from "zod";

/** Validates a factory's options once at start-up, a `TypeError` naming each bad option; the input is never modified. */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, factory: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : "options";
    return `${path}: ${issue.message}`;
  });
  throw new TypeError(`${factory}: invalid options: ${problems.join("; ")}`);
}

/** A zod check that a value is a function; `what` describes the expected signature in the error. */
export const fn = <T>(what: string) => z.custom<T>((value) => typeof value === "function", { message: `must be a function (${what})` });

/** A zod check that a value is an object with the named methods; `name` says what it should be in the error. */
export function implementing<T>(name: string, methods: readonly string[]) {
  return z.custom<T>(
    (value) => typeof value === "object" && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
    { message: `must be a ${name} (with ${methods.join(", ")})` },
  );
}

/** A check of a whole options object, with the message and the option it names when it fails: zod's `.refine(...refinement)`. */
export type Refinement<T> = readonly [check: (value: T) => boolean, params: { message: string; path: PropertyKey[] }];
