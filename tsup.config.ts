import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", drupal: "src/drupal7/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  external: ["express", "mysql2", "pg"],
});
