import { json, ref } from "../parts.js";
import type { PathBuilder } from "../path-builder.js";
import type { OpenApiObject } from "../types.js";
import { accountOperation, denied, servedCalls, servicesError } from "./account-operation.js";
import { registration } from "./registration.js";

const index = (): OpenApiObject =>
  accountOperation(
    "userIndex",
    "List accounts",
    'Rows of the `users` table for those with "access user profiles", newest first: `fields` (comma-separated), `parameters[<column>]` (comma-separated values, `IN`), `options[orderby][<column>]`, `options[parameters_op][<column>]`, `page`, `pagesize` (at most the site\'s page size without "perform unlimited index queries").',
    {
      "200": { description: "The rows, each with its `uri`.", content: json({ type: "array", items: ref("UserRow") }) },
      "403": denied,
      "406": servicesError("Invalid query provided, double check that the fields and parameters you defined are correct and exist. …"),
    },
    { parameters: ["page", "fields", "pagesize"].map((name) => ({ name, in: "query", required: false, schema: { type: "string" } })) },
  );

/** `user`: create an account (POST), list accounts (GET). */
export const user: PathBuilder = (context) => {
  const calls = servedCalls(context);
  const operations: OpenApiObject = {
    ...(calls.has("create") ? { post: registration(context, "userCreate", "Create an account") } : {}),
    ...(calls.has("index") ? { get: index() } : {}),
  };
  return Object.keys(operations).length === 0 ? {} : { [`${context.base}/user.json`]: operations };
};
