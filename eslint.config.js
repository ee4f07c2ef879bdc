import js from "@eslint/js";
import tseslint from "typescript-eslint";
import regexp from "eslint-plugin-regexp";

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
  {
    // The core never touches Express: only src/express/ may import it.
    files: ["src/core/**", "src/stores/**", "src/services/**", "src/drupal/**"],
    rules: {
      "no-restricted-imports": ["error", { paths: ["express"], patterns: ["express/*", "**/express/**"] }],
    },
  },
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
