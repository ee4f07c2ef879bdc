import { defineConfig } from "tsup";

export default defineConfig({
  // One entry per subpath export, so an optional peer is loaded only by the subpath that needs it.
  entry: {
    index: "src/index.ts",
    drupal: "src/drupal7/index.ts",
    redis: "src/stores/redis/index.ts",
    "sealed-cookie": "src/stores/sealed-cookie/index.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  external: ["express", "mysql2", "pg", "redis", "iron-session"],
});
