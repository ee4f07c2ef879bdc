/**
 * What a side-by-side account test reads and sets on a real Drupal site: its variables (PHP
 * serialized, the bootstrap cache cleared so the next request reads them), the mail Drupal's
 * TestingMailSystem kept in `drupal_test_email_collector` (unserialized by PHP itself), and rows.
 */
import { execFileSync } from "node:child_process";
import type { DrupalSite } from "../../drupal/helpers/drupal7-site.js";

/** A PHP value as `serialize()` writes it, for the few shapes a test sets. */
export function phpValue(value: string | number | boolean): string {
  if (typeof value === "boolean") return `b:${value ? 1 : 0};`;
  if (typeof value === "number") return `i:${value};`;
  return `s:${Buffer.byteLength(value)}:"${value}";`;
}

/** Sets Drupal variables as `variable_set()` would, and drops the cached copy. */
export async function setVariables(site: DrupalSite, variables: Readonly<Record<string, string | number | boolean>>): Promise<void> {
  for (const [name, value] of Object.entries(variables)) {
    const serialized = Buffer.from(phpValue(value));
    await site.sql("DELETE FROM variable WHERE name = ?", [name]);
    await site.sql("INSERT INTO variable (name, value) VALUES (?, ?)", [name, site.dialect === "mysql" ? serialized.toString() : serialized]);
  }
  await site.sql("DELETE FROM cache_bootstrap WHERE cid = ?", ["variables"]);
}

/** One mail as Drupal's TestingMailSystem kept it (`params` and `language` left out). */
export interface DrupalMail {
  readonly id: string;
  readonly key: string;
  readonly to: string;
  readonly from: string;
  readonly subject: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** The mails Drupal collected so far, oldest first. */
export async function drupalMails(site: DrupalSite): Promise<DrupalMail[]> {
  const [row] = await site.sql<{ value: Buffer | string }>("SELECT value FROM variable WHERE name = ?", ["drupal_test_email_collector"]);
  if (row === undefined) return [];
  const raw = Buffer.isBuffer(row.value) ? row.value : Buffer.from(row.value);
  const json = execFileSync(
    "php",
    [
      "-r",
      '$v = unserialize(stream_get_contents(STDIN)); $o = array(); foreach ($v as $m) { unset($m["params"], $m["language"]); $o[] = $m; } echo json_encode($o);',
    ],
    { input: raw },
  ).toString();
  return JSON.parse(json) as DrupalMail[];
}

/** Forgets the mails Drupal collected. */
export async function clearDrupalMails(site: DrupalSite): Promise<void> {
  await site.sql("DELETE FROM variable WHERE name = ?", ["drupal_test_email_collector"]);
  await site.sql("DELETE FROM cache_bootstrap WHERE cid = ?", ["variables"]);
}

/** A `users` row with every value as text (PDO's view), `data` as its serialized text. */
export async function usersRow(site: DrupalSite, uid: string | number): Promise<Record<string, string | null> | undefined> {
  const [row] = await site.sql<Record<string, unknown>>("SELECT * FROM users WHERE uid = ?", [Number(uid)]);
  if (row === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(row).map(([key, value]) => [key, value === null ? null : Buffer.isBuffer(value) ? value.toString() : String(value)]),
  );
}

/** The role ids of an account in `users_roles`, sorted. */
export async function roleIds(site: DrupalSite, uid: string | number): Promise<string[]> {
  const rows = await site.sql<{ rid: unknown }>("SELECT rid FROM users_roles WHERE uid = ? ORDER BY rid", [Number(uid)]);
  return rows.map((row) => String(row.rid));
}
