import { z } from "zod";

/**
 * Validates a factory's options once, at start-up. A problem is a `TypeError` that names
 * the factory and every offending option; the caller's object is never modified.
 */
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
