import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests and the example import the package by name, as users do; resolve it to the source.
    alias: [
      { find: /^services-session-auth$/, replacement: src("index.ts") },
      {
        find: /^services-session-auth\/(express|redis|ioredis|sealed-cookie|drupal|fetch|fastify|hono|nodemailer|opentelemetry)$/,
        replacement: src("entries/$1.ts"),
      },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Type tests (expectTypeOf in *.test-d.ts) are checked by tsc as part of every run.
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
