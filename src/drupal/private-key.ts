import { z } from "zod";
import { parseOptions } from "../validate.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import { readVariables } from "./variables.js";

const optionsSchema = z.strictObject({ ...databaseOptionFields });

/**
 * Reads Drupal 7's `drupal_private_key` (PHP-serialized in `variable`) for {@link drupal7CsrfToken};
 * once at start-up is enough, it never changes.
 *
 * @example
 * ```ts
 * const privateKey = await readDrupal7PrivateKey({ pool });
 * const csrfToken = drupal7CsrfToken({ privateKey, hashSalt: process.env.DRUPAL_HASH_SALT! });
 * ```
 * @throws TypeError when an option is invalid.
 * @throws Error when the row is missing or is not a serialized non-empty string.
 */
export async function readDrupal7PrivateKey(options: Drupal7DatabaseOptions): Promise<string> {
  const db = drupal7Database(parseOptions(optionsSchema, options, "readDrupal7PrivateKey"), "readDrupal7PrivateKey");
  const value = (await readVariables(db, ["drupal_private_key"])).get("drupal_private_key");
  if (typeof value !== "string" || value.length === 0) throw new Error("Drupal 7: variable drupal_private_key is missing or not a serialized string");
  return value;
}
