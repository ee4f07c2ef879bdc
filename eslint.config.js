import js from "@eslint/js";
import tseslint from "typescript-eslint";
import regexp from "eslint-plugin-regexp";

/** An import rule for the files of one layer: none of the `above` folders of src, and no web framework but the one allowed. */
function layer(files, above, { allow } = {}) {
  const folders = above.map((folder) => ({
    group: [`**/${folder}/**`, `../${folder}/*`, `./${folder}/*`],
    message: `${files.join(", ")} sits below src/${folder}: imports point down.`,
  }));
  const frameworks = ["express", "fastify"]
    .filter((framework) => framework !== allow)
    .map((framework) => ({ group: [framework, `${framework}/*`, `${framework}-*`], message: `Only src/${framework} imports ${framework}.` }));
  return [{ files, rules: { "no-restricted-imports": ["error", { patterns: [...folders, ...frameworks] }] } }];
}

/** The concept folders of src, and the folders above them. */
const CONCEPTS = ["wire", "mail", "http-input", "origins", "cookie", "cors", "sessions", "login", "accounts", "endpoint", "options"];
const TOP = ["stores", "drupal", "mailers", "openapi", "express", "fetch", "fastify", "cli", "entries"];

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
  // Layers point down. From the bottom: the shared types, errors, clock, events, checks and
  // keys; the wire format, the reading of HTTP input, the origins, the cookie and CORS; the session
  // lifecycle; the login path; the endpoint; the options that put each concept's slice
  // together; the stores and the Drupal migration kit; the composition root (engine.ts), the
  // OpenAPI document and the bindings (Express, fetch, Fastify, side by side); the command line
  // and the entry points. A file imports only from its own layer and those below it; only a
  // framework's own binding imports the framework.
  ...layer(["src/types.ts", "src/errors.ts", "src/clock.ts", "src/events.ts", "src/validate.ts", "src/keys/**"], [...CONCEPTS, ...TOP]),
  ...layer(
    ["src/wire/**", "src/mail/**", "src/http-input/**", "src/origins/**", "src/cookie/**", "src/cors/**"],
    ["sessions", "login", "accounts", "endpoint", "options", ...TOP],
  ),
  ...layer(["src/sessions/**"], ["login", "accounts", "endpoint", "options", ...TOP]),
  ...layer(["src/login/**"], ["accounts", "endpoint", "options", ...TOP]),
  // The account calls of the user resource: above the session lifecycle and the login path, below the endpoint that routes to them.
  ...layer(["src/accounts/**"], ["endpoint", "options", ...TOP]),
  ...layer(["src/endpoint/**"], ["options", ...TOP]),
  ...layer(["src/options/**"], TOP),
  ...layer(["src/stores/**", "src/drupal/**", "src/mailers/**"], ["endpoint", "options", "openapi", "express", "fetch", "fastify", "cli", "entries"]),
  ...layer(["src/openapi/**", "src/engine.ts"], ["express", "fetch", "fastify", "drupal", "cli", "entries"]),
  // The bindings sit side by side: each translates for its own framework, and none imports another.
  ...layer(["src/express/**"], ["fetch", "fastify", "drupal", "cli", "entries"], { allow: "express" }),
  ...layer(["src/fetch/**"], ["express", "fastify", "drupal", "cli", "entries"]),
  ...layer(["src/fastify/**"], ["express", "fetch", "drupal", "cli", "entries"], { allow: "fastify" }),
  {
    files: ["src/**"],
    rules: { "no-console": "error" },
  },
  {
    // The demo page's script runs in the browser, as it is (no build step).
    files: ["examples/**/public/**/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: { document: "readonly", fetch: "readonly", FormData: "readonly", URLSearchParams: "readonly", location: "readonly" },
    },
  },
);
