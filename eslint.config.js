import path from "node:path";
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import regexp from "eslint-plugin-regexp";

// The house: every room of src (a folder, or a file at its root) and the rooms it stands on.
// A file may import its own room and everything beneath it, following these arrows down; nothing
// beside it and nothing above. The ground (GROUND) is beneath every room. A room that is not named
// here has no place yet: each of its imports fails lint until it is given one.
const GROUND = ["types.ts", "errors.ts", "clock.ts", "events.ts", "validate.ts"];
export const HOUSE = {
  ...Object.fromEntries(GROUND.map((file) => [file, []])),
  // Building blocks: the keys, mail text, the wire format, the reading of HTTP input, the writing of HTTP output.
  keys: [],
  mail: [],
  wire: [],
  "http-input": [],
  "http-output": ["wire"],
  // The concepts, each on what it needs.
  cookie: ["http-input"],
  origins: ["http-input"],
  cors: ["origins", "http-output"],
  sessions: ["cookie"],
  login: ["sessions", "keys"],
  accounts: ["login", "mail", "wire"],
  endpoint: ["accounts", "origins"],
  // The stores, and what is built on them: the Drupal migration kit, the mailers, telemetry.
  stores: ["accounts", "keys"],
  drupal: ["stores"],
  mailers: ["stores"],
  telemetry: ["stores"],
  // The options that put each concept's slice together; the OpenAPI document; the engine.
  options: ["endpoint", "cors", "telemetry"],
  openapi: ["options"],
  engine: ["openapi", "options", "stores"],
  // The bindings: each translates for its own framework, and none imports another.
  // fetch and Hono share the Web layer (a Web Request in, a Response out).
  web: ["engine"],
  express: ["engine"],
  fastify: ["engine"],
  fetch: ["web"],
  hono: ["web"],
  // The faces: the root export (framework-neutral: no binding beneath it), the subpath entries, the command line.
  "index.ts": ["engine"],
  entries: ["express", "fastify", "fetch", "hono", "drupal", "mailers"],
  cli: ["drupal"],
};

// The web frameworks, each known by every name its packages go by, and each imported only by the
// room of its own name: its binding. @fastify/busboy is a multipart parser that stands alone
// (undici uses it too), no part of Fastify.
const FRAMEWORKS = ["express", "fastify", "hono"];
const BINDINGS = ["express", "fastify", "fetch", "hono"];
const STANDALONE = ["@fastify/busboy"];
const frameworkOf = (specifier) =>
  STANDALONE.includes(specifier)
    ? undefined
    : FRAMEWORKS.find((name) => [name, `${name}/`, `${name}-`, `@${name}/`, `@types/${name}`].some((start) => specifier.startsWith(start)));

/** Every room beneath each room, following the arrows down; a room beneath itself would be a circle. */
const BENEATH = Object.fromEntries(
  Object.keys(HOUSE).map((room) => {
    const seen = new Set(GROUND.includes(room) ? [] : GROUND);
    const visit = (from) => {
      for (const to of HOUSE[from]) {
        if (!(to in HOUSE)) throw new Error(`eslint.config.js: src/${from} stands on src/${to}, which is not a room of the house.`);
        if (to === room) throw new Error(`eslint.config.js: src/${room} stands on itself (through src/${from}): the house has a circle.`);
        if (seen.has(to)) continue;
        seen.add(to);
        visit(to);
      }
    };
    visit(room);
    return [room, seen];
  }),
);

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), "src");
/** The room of a path under src (its first folder, or the file itself at src's root); undefined outside src. */
const roomOf = (file) => {
  const relative = path.relative(SRC, file);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep)[0].replace(/\.js$/, ".ts");
};

/** Why a file of `room` may not import from `target`, or undefined where it may. */
function refusal(room, target) {
  if (!(target in HOUSE)) return `src/${room} imports src/${target}, which has no place in the house: name it in eslint.config.js.`;
  if (BENEATH[room].has(target)) return undefined;
  if (BENEATH[target].has(room)) return `src/${room} imports src/${target}, which stands above it: imports point down.`;
  if (BINDINGS.includes(room) && BINDINGS.includes(target)) return `src/${room} imports src/${target}, another binding: bindings never import each other.`;
  return `src/${room} imports src/${target}, which stands beside it, not beneath: a room imports only what it stands on.`;
}

/** Layers point down, and only a framework's own binding imports the framework. */
const layers = {
  meta: { type: "problem", schema: [] },
  create(context) {
    const file = context.filename;
    const room = roomOf(file);
    if (room === undefined) return {};
    const check = (node) => {
      const specifier = node?.type === "Literal" && typeof node.value === "string" ? node.value : undefined;
      if (specifier === undefined) return;
      if (!specifier.startsWith(".")) {
        const framework = frameworkOf(specifier);
        if (framework !== undefined && room !== framework)
          context.report({ node, message: `src/${room} imports ${specifier}: only src/${framework}, the ${framework} binding, imports ${framework}.` });
        return;
      }
      const target = roomOf(path.resolve(path.dirname(file), specifier));
      if (target === undefined) return;
      if (!(room in HOUSE))
        return context.report({ node, message: `src/${room} has no place in the house: name it in eslint.config.js with the rooms it stands on.` });
      if (target === room) return;
      const message = refusal(room, target);
      if (message !== undefined) context.report({ node, message });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

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
    files: ["src/**"],
    plugins: { house: { rules: { layers } } },
    rules: { "house/layers": "error", "no-console": "error" },
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
