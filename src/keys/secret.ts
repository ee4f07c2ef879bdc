import { z } from "zod";

/** A secret that looks random (32+ characters, 8+ distinct, hardly a repeated run): a repeated pattern is refused. */
export const secretSchema = z
  .string()
  .min(32, "must be at least 32 characters")
  .refine(
    (value) => new Set(value).size >= 8 && !repeatsItself(value),
    "looks weak (a few characters, or a pattern, repeated): use 32+ random characters, e.g. from `npx services-session-auth secret` or `node -e \"console.log(crypto.randomBytes(32).toString('base64url'))\"`",
  );

/** Whether more than a quarter of the runs of three characters in `text` occurred earlier in it. Linear. */
function repeatsItself(text: string): boolean {
  const runs = new Set<string>();
  for (let i = 0; i + 3 <= text.length; i++) runs.add(text.slice(i, i + 3));
  return runs.size < 0.75 * (text.length - 2);
}
