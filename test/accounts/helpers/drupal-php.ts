/**
 * Drupal 7.101's own functions run by PHP: read at test time from the GPL tarball beside the
 * repository (../shared/drupal7/sources, never copied here), each function's source cut out of its
 * file and run with the few helpers it calls, so tests compare this package with Drupal itself.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCES = fileURLToPath(new URL("../../../../shared/drupal7/sources", import.meta.url));

/** Why Drupal's PHP cannot run here, or `null` when it can. */
export function drupalPhpMissing(): string | null {
  if (!existsSync(SOURCES)) return `no Drupal sources at ${SOURCES}`;
  try {
    execFileSync("php", ["-v"], { stdio: "ignore" });
  } catch {
    return "PHP is not installed (../shared/drupal7/site.sh install)";
  }
  return null;
}

const files = new Map<string, string>();

/** A file of Drupal 7.101's tree (`modules/user/user.module`), read from the tarball. */
function drupalFile(path: string): string {
  let text = files.get(path);
  if (text === undefined) {
    const tarball = join(
      SOURCES,
      readdirSync(SOURCES).find((name) => /^drupal-7\.\d+\.tar\.gz$/.test(name))!,
    );
    // The tree's top folder, whatever the tarball calls it.
    const top = execFileSync("sh", ["-c", 'tar -tzf "$1" | head -n 1', "sh", tarball]).toString().trim().replace(/\/$/, "");
    text = execFileSync("tar", ["-xzOf", tarball, `${top}/${path}`], { maxBuffer: 1 << 24 }).toString();
    files.set(path, text);
  }
  return text;
}

/** One function's source from a Drupal file: from `function name(` to the `}` that closes it at the start of a line. */
export function drupalFunction(path: string, name: string): string {
  const text = drupalFile(path);
  const start = text.indexOf(`\nfunction ${name}(`);
  if (start === -1) throw new Error(`no function ${name} in ${path}`);
  const end = text.indexOf("\n}\n", start);
  return text.slice(start + 1, end + 2);
}

/** The helpers Drupal's string functions call: its own `check_plain()`, `drupal_placeholder()` and `format_string()`, with `t()` as `format_string()`. */
function stringHelpers(): string {
  return [
    drupalFunction("includes/bootstrap.inc", "check_plain"),
    drupalFunction("includes/bootstrap.inc", "drupal_placeholder"),
    drupalFunction("includes/bootstrap.inc", "format_string"),
    "function t($string, array $args = array(), array $options = array()) { return format_string($string, $args); }",
    "function drupal_strlen($text) { return mb_strlen($text); }",
  ].join("\n");
}

/**
 * Runs `body` (PHP that reads `$in`, the JSON input decoded, and echoes JSON) after the named
 * Drupal functions (`[file, function]`) and the string helpers; resolves its decoded output.
 */
export function runDrupalPhp<T>(functions: ReadonlyArray<readonly [string, string]>, body: string, input: unknown): T {
  const code = [
    stringHelpers(),
    ...functions.map(([file, name]) => drupalFunction(file, name)),
    "$in = json_decode(stream_get_contents(STDIN), TRUE);",
    body,
  ].join("\n");
  const output = execFileSync("php", ["-r", code], { input: JSON.stringify(input), maxBuffer: 1 << 26 }).toString();
  return JSON.parse(output) as T;
}
