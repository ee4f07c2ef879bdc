import { z } from "zod";

/**
 * The checks on {@link openApiDocument}'s options, with the messages a caller reads in the TypeError.
 *
 * @module
 */

/** Why a value is not a zod 4 schema (classic, mini, or the app's own copy, by their shared `_zod`), or `undefined`. */
function zodSchemaProblem(value: unknown): string | undefined {
  if (typeof value === "object" && value !== null && "_zod" in value) return undefined;
  if (typeof value === "object" && value !== null && "_def" in value && typeof (value as { safeParse?: unknown }).safeParse === "function") {
    return 'is a zod 3 schema, and openApiDocument needs zod 4: install zod@^4 and import it from "zod" (with zod 3.25, from "zod/v4")';
  }
  return "must be a zod 4 schema";
}
const zodSchema = z.custom<z.core.$ZodType>((value) => zodSchemaProblem(value) === undefined, { error: (issue) => zodSchemaProblem(issue.input) });
const routesShape = {
  endpointPath: z
    .string()
    .regex(/^\/(?:.*[^/])?$/, "must start with / and not end with /")
    .optional(),
  info: z.strictObject({ title: z.string().optional(), version: z.string().optional(), description: z.string().optional() }).optional(),
  servers: z
    .array(z.strictObject({ url: z.string(), description: z.string().optional() }))
    .readonly()
    .optional(),
  routes: z
    .array(
      z.strictObject({
        method: z.enum(["get", "post", "put", "patch", "delete"]),
        path: z.string().startsWith("/"),
        summary: z.string().optional(),
        roles: z.array(z.string()).readonly().optional(),
        csrf: z.boolean().optional(),
        response: zodSchema.optional(),
        responses: z.record(z.string().regex(/^[1-5]\d\d$/, "must be an HTTP status"), z.string()).optional(),
      }),
    )
    .readonly()
    .optional(),
};
/** The document's own options: where the endpoint is, `info`, `servers`, the app's routes. */
export const routesSchema = z.strictObject(routesShape);
/** All of {@link openApiDocument}'s options. The `auth` object itself is checked by the package's own resolver; its stores are not read. */
export const optionsSchema = z.strictObject({ ...routesShape, auth: z.looseObject({}).optional() });
