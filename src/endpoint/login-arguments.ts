import { z } from "zod";
import { bodyArgument } from "../http-input/body.js";

/** The limits the login body is checked against: the options of the same names. */
export interface LoginBodyLimits {
  readonly maxNameLength: number;
  readonly maxPasswordBytes: number;
}

/** The names `user/login` reads its arguments under: API 1.0's and API 1.1's. */
export type LoginArgumentName = "username" | "password" | "name" | "pass";

/** The schemas of `user/login`'s arguments, checked by the endpoint and printed by the OpenAPI document: one source, no drift. */
export function loginArgumentSchemas(limits: LoginBodyLimits): Readonly<Record<LoginArgumentName, z.ZodType<string | number>>> {
  const name = z
    .union([z.string().max(limits.maxNameLength), z.number()])
    .meta({ description: `The account name (case-insensitive), at most ${limits.maxNameLength} characters.` });
  const password = z
    .union([z.string().refine((value) => Buffer.byteLength(value) <= limits.maxPasswordBytes, `at most ${limits.maxPasswordBytes} bytes`), z.number()])
    .meta({ description: `The password, at most ${limits.maxPasswordBytes} bytes in UTF-8.` });
  return { username: name, password, name, pass: password };
}

/** The login body as a whole: `username`/`password` (API 1.0) or `name`/`pass` (1.1); other keys ignored. */
export function loginBodySchema(limits: LoginBodyLimits) {
  const args = loginArgumentSchemas(limits);
  return z.looseObject({
    username: args.username.optional(),
    password: args.password.optional(),
    name: args.name.optional(),
    pass: args.pass.optional(),
  });
}

/** An argument that is present but fails its schema: the login refuses it as "Wrong username or password." */
const INVALID_ARGUMENT = null;

/** One login argument: `undefined` when absent (PHP `isset()`), {@link INVALID_ARGUMENT} when no string or number; over-long is kept, to be counted. */
export function readLoginArgument(body: unknown, schema: z.ZodType<string | number>, key: string): string | number | null | undefined {
  const value = bodyArgument(body, key);
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  return typeof value === "string" ? value : INVALID_ARGUMENT;
}
