/**
 * The frameworks the package binds to: a suite that runs on every binding runs on each of these,
 * from this one list (`describe.each(FRAMEWORKS)`), so a binding added here is a binding tested
 * everywhere.
 */
export const FRAMEWORKS = ["express", "fastify", "hono", "fetch"] as const;
export type Framework = (typeof FRAMEWORKS)[number];
