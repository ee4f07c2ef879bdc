import { defineConfig } from "tsup";

export default defineConfig({
  // One entry per subpath export, so an optional peer is loaded only by the subpath that needs it.
  entry: {
    index: "src/index.ts",
    drupal: "src/entries/drupal.ts",
    redis: "src/entries/redis.ts",
    ioredis: "src/entries/ioredis.ts",
    "sealed-cookie": "src/entries/sealed-cookie.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // The CJS build gets import.meta.url, which optional peers are loaded relative to.
  shims: true,
  external: ["express", "mysql2", "pg", "redis", "ioredis", "iron-session"],
});
