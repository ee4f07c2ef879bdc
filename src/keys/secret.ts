import { z } from "zod";

/**
 * A secret that could have come from a random generator: 32 characters at least, at least 8
 * distinct ones (random hex has 14 on average), and hardly a run of three characters twice:
 * a word or pattern repeated (`"a".repeat(32)`, `"password"` four times and a `1`) passes a
 * length check and guards nothing, while 32 random characters repeat a run of three about
 * once in two secrets at worst (hex).
 */
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
