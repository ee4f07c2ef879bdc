import { defineConfig } from "tsup";

export default defineConfig([
  {
    // One entry per subpath export, so an optional peer is loaded only by the subpath that needs it.
    entry: {
      index: "src/index.ts",
      express: "src/entries/express.ts",
      drupal: "src/entries/drupal.ts",
      redis: "src/entries/redis.ts",
      ioredis: "src/entries/ioredis.ts",
      "sealed-cookie": "src/entries/sealed-cookie.ts",
      fetch: "src/entries/fetch.ts",
      fastify: "src/entries/fastify.ts",
      hono: "src/entries/hono.ts",
      nodemailer: "src/entries/nodemailer.ts",
      opentelemetry: "src/entries/opentelemetry.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    // The command line is built alongside by the second config: clean everything but it.
    clean: ["!cli.js", "!cli.js.map"],
    target: "node20",
    // The CJS build gets import.meta.url, which optional peers are loaded relative to.
    shims: true,
    external: ["express", "fastify", "fastify-plugin", "hono", "mysql2", "pg", "redis", "ioredis", "iron-session", "nodemailer", "@opentelemetry/api"],
  },
  {
    // The `bin`: ESM only, run by node directly; the peers it needs are loaded when a command needs them.
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    banner: { js: "#!/usr/bin/env node" },
    sourcemap: true,
    clean: false,
    target: "node20",
    external: ["express", "fastify", "fastify-plugin", "hono", "mysql2", "pg", "redis", "ioredis", "iron-session", "nodemailer", "@opentelemetry/api"],
  },
]);
