import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const readme = readFileSync("README.md", "utf8");
const lines = readme.split("\n");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .trim()
    .replace(/\s/g, "-");
}

/** The ```ts blocks announced by `<!-- mirrors: path -->`, with the file each must come from. */
function mirroredSnippets(): { file: string; code: string[]; at: number }[] {
  const out: { file: string; code: string[]; at: number }[] = [];
  lines.forEach((line, index) => {
    const match = /^<!-- mirrors: (\S+) -->$/.exec(line);
    if (match === null) return;
    expect(lines[index + 1], `README line ${index + 2}`).toBe("```ts");
    const end = lines.indexOf("```", index + 2);
    out.push({ file: match[1]!, code: lines.slice(index + 2, end), at: index + 1 });
  });
  return out;
}

describe("README.md", () => {
  it("has a table of contents whose links all land on a heading", () => {
    const headings = new Set(lines.filter((line) => /^#{2,3} /.test(line)).map((line) => anchor(line.replace(/^#+ /, ""))));
    const toc = readme.slice(readme.indexOf("## Contents"), readme.indexOf("## Quick start"));
    const links = [...toc.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]!);
    expect(links.length).toBeGreaterThan(15);
    for (const link of links) expect(headings, link).toContain(link);
    for (const link of [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]!)) expect(headings, link).toContain(link);
  });

  it("quotes recipe code line for line from files that compile and are tested", () => {
    const snippets = mirroredSnippets();
    expect(snippets.length).toBeGreaterThanOrEqual(7);
    for (const { file, code, at } of snippets) {
      const source = new Set(readFileSync(file, "utf8").split("\n").map((line) => line.trim()));
      for (const line of code) {
        // Import lines name what a reader must import; the files import more, in other shapes.
        if (line.trim() === "" || line.startsWith("import ")) continue;
        expect(source.has(line.trim()), `README line ${at}: "${line.trim()}" is not in ${file}`).toBe(true);
      }
    }
  });

  it("backs every recipe with a test file that exists", () => {
    const recipes = readme.slice(readme.indexOf("## Recipes"), readme.indexOf("## A walk-through with curl")).split(/^### /m).slice(1);
    expect(recipes.map((recipe) => recipe.split("\n")[0])).toEqual([
      "Protect a route",
      "Require a role",
      "Use Redis",
      "Log out everywhere",
      "Log audit events with pino",
      "Answer a denied request yourself",
      "Migrate from Drupal 7",
      "Write your own store",
      "Describe your API with OpenAPI",
    ]);
    for (const recipe of recipes) {
      const tests = [...recipe.matchAll(/`(test\/[\w/.-]+\.test\.ts)`/g)].map((match) => match[1]!);
      expect(tests.length, recipe.split("\n")[0]).toBeGreaterThan(0);
    }
  });

  it("links with absolute URLs, which work on the npm page too, to files that exist in this repository", () => {
    const { url } = (JSON.parse(readFileSync("package.json", "utf8")) as { repository: { url: string } }).repository;
    const repo = /^git\+(https:\/\/github\.com\/[\w.-]+\/[\w.-]+?)\.git$/.exec(url)?.[1];
    expect(repo, url).toBeDefined();
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    // Only in-page anchors and absolute URLs: a relative path is dead on npmjs.com.
    for (const target of targets) expect(target, target).toMatch(/^(#|https:\/\/)/);
    const own = targets.filter((target) => target.startsWith(`${repo}/`));
    expect(own.length).toBeGreaterThan(5);
    for (const target of own) {
      const path = /^\/(?:blob|tree)\/main\/([^#?]+)/.exec(target.slice(repo!.length))?.[1];
      expect(path, `${target} is not a file on main`).toBeDefined();
      expect(existsSync(path!), target).toBe(true);
    }
  });

  it("names only files that exist", () => {
    const paths = [...readme.matchAll(/[`(]((?:test|examples|docs|src)\/[\w/.-]+\.(?:ts|md))[`)]/g)].map((match) => match[1]!);
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) expect(existsSync(path), path).toBe(true);
  });
});
