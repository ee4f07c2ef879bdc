import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const readme = readFileSync("README.md", "utf8");
const lines = readme.split("\n");
const DOCS = readdirSync("docs")
  .filter((file) => file.endsWith(".md"))
  .map((file) => `docs/${file}`);

/** The repository's GitHub address, from package.json. */
const REPO = /^git\+(https:\/\/github\.com\/[\w.-]+\/[\w.-]+?)\.git$/.exec(
  (JSON.parse(readFileSync("package.json", "utf8")) as { repository: { url: string } }).repository.url,
)?.[1];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .trim()
    .replace(/\s/g, "-");
}

/** A Markdown text without its fenced code blocks, whose `#` lines and brackets are code, not headings or links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
}

/** The anchors of a Markdown file's headings. */
function headingsOf(file: string): Set<string> {
  const text = prose(readFileSync(file, "utf8"));
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1]!)));
}

/** Every link target of a Markdown text, outside code blocks. */
function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/**
 * Where a link lands in this repository, as a path and an optional anchor: an absolute URL of
 * this repository's main branch, or (in docs/) a path relative to the file. Undefined for
 * another site's URL.
 */
function target(link: string, from: string): { path: string; fragment: string | undefined } | undefined {
  const [location, fragment] = link.split("#") as [string, string | undefined];
  if (location === "") return { path: from, fragment };
  if (REPO !== undefined && location.startsWith(`${REPO}/`)) {
    const path = /^\/(?:blob|tree)\/main\/([^?]+)$/.exec(location.slice(REPO.length))?.[1];
    expect(path, `${link} (in ${from}) is not a file on main`).toBeDefined();
    return { path: path!, fragment };
  }
  if (/^[a-z]+:/.test(location)) return undefined;
  return { path: normalize(join(dirname(from), location)), fragment };
}

/** Checks that each link of a file lands on a file of this repository and, with an anchor, on a heading of it. */
function expectLinksLand(file: string, links: string[]): void {
  for (const link of links) {
    const landing = target(link, file);
    if (landing === undefined) continue;
    expect(existsSync(landing.path), `${link} (in ${file})`).toBe(true);
    if (landing.fragment !== undefined && landing.path.endsWith(".md")) expect(headingsOf(landing.path), `${link} (in ${file})`).toContain(landing.fragment);
  }
}

/** The ```ts blocks of a Markdown file announced by `<!-- mirrors: path -->`, with the file each must come from. */
function mirroredSnippets(file: string): { file: string; code: string[]; at: number }[] {
  const textLines = readFileSync(file, "utf8").split("\n");
  const out: { file: string; code: string[]; at: number }[] = [];
  textLines.forEach((line, index) => {
    const match = /^<!-- mirrors: (\S+) -->$/.exec(line);
    if (match === null) return;
    expect(textLines[index + 1], `${file} line ${index + 2}`).toBe("```ts");
    const end = textLines.indexOf("```", index + 2);
    out.push({ file: match[1]!, code: textLines.slice(index + 2, end), at: index + 1 });
  });
  return out;
}

/** A level-2 section of the README, up to the next level-2 heading. */
function section(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const next = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, next === -1 ? undefined : next);
}

describe("README.md", () => {
  it("has a table of contents whose links all land on a heading, and links every page of docs/ among its guides", () => {
    const headings = headingsOf("README.md");
    const toc = section("Contents");
    const anchors = [...toc.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]!);
    expect(anchors.length).toBeGreaterThanOrEqual(8);
    for (const link of anchors) expect(headings, link).toContain(link);
    for (const link of [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]!)) expect(headings, link).toContain(link);
    const guides = section("Guides");
    for (const doc of DOCS) expect(guides, `the guides link ${doc}`).toContain(`(${REPO}/blob/main/${doc})`);
  });

  it("stays short: a newcomer reads it in ten minutes", () => {
    expect(lines.length).toBeLessThan(300);
  });

  it("links with absolute URLs, which work on the npm page too, to files (and headings) that exist in this repository", () => {
    expect(REPO).toBeDefined();
    const targets = linksOf(readme);
    // Only in-page anchors and absolute URLs: a relative path is dead on npmjs.com.
    for (const link of targets) expect(link, link).toMatch(/^(#|https:\/\/)/);
    expect(targets.filter((link) => link.startsWith(`${REPO}/`)).length).toBeGreaterThan(5);
    expectLinksLand("README.md", targets);
  });

  it("names only files that exist", () => {
    const paths = [...readme.matchAll(/[`(]((?:test|examples|docs|src)\/[\w/.-]+\.(?:ts|md))[`)#]/g)].map((match) => match[1]!);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(existsSync(path), path).toBe(true);
  });
});

/** The blocks announced by `<!-- file: path -->`: each prints that whole file. */
function wholeFiles(markdown: string): { file: string; code: string }[] {
  const textLines = markdown.split("\n");
  const out: { file: string; code: string }[] = [];
  textLines.forEach((line, index) => {
    const match = /^<!-- file: (\S+) -->$/.exec(line);
    if (match === null) return;
    expect(textLines[index + 1], `the line after ${line}`).toMatch(/^```\w+$/);
    const end = textLines.indexOf("```", index + 2);
    out.push({ file: match[1]!, code: `${textLines.slice(index + 2, end).join("\n")}\n` });
  });
  return out;
}

describe("docs/recipes.md", () => {
  const recipes = readFileSync("docs/recipes.md", "utf8");

  it("quotes recipe code line for line from files that compile and are tested", () => {
    const snippets = mirroredSnippets("docs/recipes.md");
    expect(snippets.length).toBeGreaterThanOrEqual(6);
    for (const { file, code, at } of snippets) {
      const source = new Set(
        readFileSync(file, "utf8")
          .split("\n")
          .map((line) => line.trim()),
      );
      for (const line of code) {
        // Import lines name what a reader must import; the files import more, in other shapes.
        if (line.trim() === "" || line.startsWith("import ")) continue;
        expect(source.has(line.trim()), `docs/recipes.md line ${at}: "${line.trim()}" is not in ${file}`).toBe(true);
      }
    }
  });

  it("backs every recipe with a test file that exists", () => {
    const sections = recipes.split(/^## /m).slice(1);
    expect(sections.map((recipe) => recipe.split("\n")[0])).toEqual([
      "Protect a route",
      "Require a role",
      "Use Redis",
      "Log out everywhere",
      "Log audit events with pino",
      "Answer a denied request yourself",
      "Describe your API with OpenAPI",
      "Write your own store",
      "Migrate from Drupal 7",
    ]);
    for (const recipe of sections) {
      const tests = [...recipe.matchAll(/`(test\/[\w/.-]+\.test\.ts)`/g)].map((match) => match[1]!);
      expect(tests.length, recipe.split("\n")[0]).toBeGreaterThan(0);
      for (const test of tests) expect(existsSync(test), test).toBe(true);
    }
  });
});

describe.each(DOCS)("%s", (doc) => {
  const text = readFileSync(doc, "utf8");

  it("prints each `<!-- file: … -->` exactly as the file is, so what a test runs is what a reader copies", () => {
    for (const { file, code } of wholeFiles(text)) expect(code, `${doc} prints ${file}`).toBe(readFileSync(file, "utf8"));
  });

  it("links only to files and headings that exist", () => {
    expectLinksLand(doc, linksOf(text));
  });

  it("links relatively only to what the package ships (docs/, README.md, CHANGELOG.md), so links work from the tarball too", () => {
    for (const link of linksOf(text)) {
      if (/^(?:[a-z]+:|#)/.test(link)) continue;
      const path = normalize(join(dirname(doc), link.split("#")[0]!));
      expect(/^(?:docs\/[\w-]+\.md|README\.md|CHANGELOG\.md)$/.test(path), `${link} (in ${doc})`).toBe(true);
    }
  });

  it("names only files that exist", () => {
    const paths = [...text.matchAll(/[`(]((?:test|examples|docs|src|bench)\/[\w/.-]+\.(?:ts|md|mjs))[`)#]/g)].map((match) => match[1]!);
    for (const path of paths) expect(existsSync(path), path).toBe(true);
  });
});

describe("the docs/ pages the source's TSDoc names", () => {
  const SRC = readdirSync("src", { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join("src", file));

  it("ship in the package (package.json files), so a .d.ts's docs/… path resolves from the installed tarball", () => {
    const { files } = JSON.parse(readFileSync("package.json", "utf8")) as { files: string[] };
    expect(files).toContain("docs/*.md");
  });

  it("exist, each with the heading its anchor names", () => {
    let named = 0;
    for (const file of SRC) {
      for (const [, path, fragment] of readFileSync(file, "utf8").matchAll(/\b(docs\/[\w-]+\.md)(?:#([\w-]+))?/g)) {
        named++;
        expect(existsSync(path!), `${file} names ${path}`).toBe(true);
        if (fragment !== undefined) expect(headingsOf(path!), `${file} names ${path}#${fragment}`).toContain(fragment);
      }
    }
    expect(named).toBeGreaterThan(30);
  });
});

/** The option interfaces and the prefix their options go by in docs/options.md. */
const OPTION_INTERFACES: Record<string, string> = {
  SessionAuthOptions: "",
  CookieOptions: "",
  SessionOptions: "",
  LoginOptions: "",
  ThrottleOptions: "throttle.",
  HashingOptions: "hashing.",
  DeviceCookieOptions: "deviceCookies.",
  OriginOptions: "",
  CorsOptions: "",
  CorsConfig: "cors.",
  EndpointOptions: "",
  RequireSessionOptions: "",
  NotFoundOptions: "",
  ErrorHandlerOptions: "",
  AccountsOptions: "accounts.",
};
const OPTION_FILES = [
  "src/options/options.ts",
  "src/cookie/options.ts",
  "src/sessions/options.ts",
  "src/login/options.ts",
  "src/origins/options.ts",
  "src/cors/options.ts",
  "src/endpoint/options.ts",
  "src/engine/engine.ts",
  "src/express/create-session-auth-router.ts",
  "src/accounts/options.ts",
];

/** Every option of the interfaces above with the text of its `@default` tag (undefined when it has none: a required option). */
function documentedOptions(): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const file of OPTION_FILES) {
    let prefix: string | undefined;
    let tag: string | undefined;
    let inTag = false;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const opened = /^export interface (\w+)/.exec(line);
      if (opened !== null) prefix = OPTION_INTERFACES[opened[1]!];
      if (line === "}") prefix = undefined;
      const started = /@default (.*)$/.exec(line);
      if (started !== null) {
        const rest = started[1]!;
        inTag = !rest.endsWith("*/");
        tag = inTag ? rest : rest.slice(0, -2).trimEnd();
        continue;
      }
      if (inTag) {
        if (/^\s*\*(?:\/|\s*@)/.test(line)) inTag = false;
        else {
          tag += ` ${line.replace(/^\s*\*\s?/, "")}`;
          continue;
        }
      }
      const property = /^ {2}(?:readonly )?(\w+)\??:/.exec(line);
      if (property !== null && prefix !== undefined) {
        out.set(`${prefix}${property[1]!}`, tag);
        tag = undefined;
      }
    }
  }
  return out;
}

/** A default as text, to compare: no code marks, `{@link X}` as `X`, one space between words. */
function plain(text: string): string {
  return text
    .replace(/\{@link (\w+)\}/g, "$1")
    .replace(/`/g, "")
    .split(/\s/)
    .filter((word) => word !== "")
    .join(" ");
}

describe("docs/options.md", () => {
  it("has a row for every option, with the default its @default tag states", () => {
    const rows = new Map(
      [...readFileSync("docs/options.md", "utf8").matchAll(/^\| `([\w.]+)` \| ([^|]*) \|/gm)].map(([, name, cell]) => [name!, cell!] as const),
    );
    const options = documentedOptions();
    expect(options.size).toBeGreaterThan(35);
    for (const [name, tag] of options) {
      expect(rows.has(name), `docs/options.md has no row for ${name}`).toBe(true);
      expect(plain(rows.get(name)!), name).toBe(tag === undefined ? "required" : plain(tag));
    }
    for (const name of rows.keys()) expect(options.has(name), `docs/options.md documents ${name}, which is no option`).toBe(true);
  });
});

describe("the documentation", () => {
  it("carries no merge-conflict markers", () => {
    const files = ["README.md", "CHANGELOG.md", "bench/README.md", ...DOCS];
    for (const file of files) {
      const marked = readFileSync(file, "utf8")
        .split("\n")
        .findIndex((line) => /^(?:<{7}|={7}|>{7})(?: |$)/.test(line));
      expect(marked, `${file} has a conflict marker on line ${marked + 1}`).toBe(-1);
    }
  });
});
