import js from "@eslint/js";
import tseslint from "typescript-eslint";
import regexp from "eslint-plugin-regexp";

/** An import rule for the files of one layer: none of the `above` folders of src, and no Express unless allowed. */
function layer(files, above, { allowExpress = false } = {}) {
  const folders = above.map((folder) => ({ group: [`**/${folder}/**`, `../${folder}/*`, `./${folder}/*`], message: `${files.join(", ")} sits below src/${folder}: imports point down.` }));
  const express = allowExpress ? [] : [{ group: ["express", "express/*"], message: "Only src/express imports Express." }];
  return [{ files, rules: { "no-restricted-imports": ["error", { patterns: [...folders, ...express] }] } }];
}

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "docs/api/**", "test-output/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  regexp.configs["flat/recommended"],
  {
    // No pattern may take super-linear time on what a client sends: backtracking inside one
    // match, or a global/sticky search that restarts at every position of a hostile string.
    rules: {
      "regexp/no-super-linear-backtracking": ["error", { report: "potential" }],
      "regexp/no-super-linear-move": ["error", { report: "potential", ignoreSticky: false, ignorePartial: false }],
    },
  },
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  // Layers point down: types and errors, then the core, then the stores and the Drupal
  // migration kit, then the Services wire protocol, then the Express binding, then the entry
  // points. A file may import only from its own layer and those below it; only the binding
  // imports Express.
  ...layer(["src/types.ts", "src/errors.ts"], ["core", "stores", "drupal", "services", "express", "entries"]),
  ...layer(["src/core/**"], ["stores", "drupal", "services", "express", "entries"]),
  ...layer(["src/stores/**", "src/drupal/**"], ["services", "express", "entries"]),
  ...layer(["src/services/**"], ["express", "drupal", "entries"]),
  ...layer(["src/express/**"], ["drupal", "entries"], { allowExpress: true }),
  {
    files: ["src/**"],
    rules: { "no-console": "error" },
  },
  {
    // The demo page's script runs in the browser, as it is (no build step).
    files: ["examples/**/public/**/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: { document: "readonly", fetch: "readonly", FormData: "readonly" },
    },
  },
);
