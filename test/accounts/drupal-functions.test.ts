/**
 * The account calls' pieces against Drupal 7.101's own PHP (read from its tarball at test time) and
 * PHP's own functions: e-mail validation (`filter_var`), the user name rules, one-time link hashes,
 * the mail templates, and format=flowed wrapping, on generated input.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { validEmailAddress } from "../../src/accounts/form/valid-email.js";
import { userNameError } from "../../src/accounts/form/user-name.js";
import { userPassRehash } from "../../src/accounts/one-time-link.js";
import { drupalWrapMail, formatMailBody } from "../../src/mail/format.js";
import { phpWordwrap } from "../../src/mail/php-wordwrap.js";
import { USER_MAIL_DEFAULTS, type UserMailTemplateKey } from "../../src/mail/templates.js";
import { drupalPhpMissing, runDrupalPhp } from "./helpers/drupal-php.js";

const missing = drupalPhpMissing();
const required = process.env.REQUIRE_DRUPAL7_SITES === "1" && process.env.SKIP_DRUPAL7_SITES !== "1";
if (missing !== null && !required) console.warn(`${missing}: skipping the comparisons with Drupal's PHP`);

const withPhp = missing === null || required ? describe : describe.skip;

/** Samples: generated strings from an alphabet that reaches every branch, and hand-picked edges. */
function samples(alphabet: readonly string[], extra: readonly string[], count = 1500): string[] {
  const generated = fc.sample(
    fc.array(fc.constantFrom(...alphabet), { maxLength: 30 }).map((parts) => parts.join("")),
    { numRuns: count, seed: 37 },
  );
  return [...extra, ...generated];
}

withPhp("Drupal 7.101's functions", () => {
  it("validates e-mail addresses as PHP's filter_var(FILTER_VALIDATE_EMAIL)", () => {
    const alphabet = [
      "a",
      "Z",
      "0",
      "9",
      ".",
      "@",
      "-",
      '"',
      "\\",
      " ",
      "[",
      "]",
      ":",
      "_",
      "+",
      "!",
      "IPv6:",
      "ffff",
      "1.2.3.4",
      "é",
      "\n",
      "%",
      "x".repeat(64),
    ];
    const edges = [
      "a@b.co",
      "a@b",
      "a@1.2",
      "a..b@c.de",
      '"a b"@c.de',
      '"a\\"b"@c.de',
      "a@[1.2.3.4]",
      "a@[01.2.3.4]",
      "a@[IPv6:::1]",
      "a@[IPv6:1:2:3:4:5:6:7:8]",
      "a@[IPv6:1:2:3:4:5:6::8]",
      "a@[IPv6:::ffff:1.2.3.4]",
      "a@[IPv6:1:2:3:4::1.2.3.4]",
      "a@[::1.2.3.4]",
      `${"x".repeat(64)}@a.bc`,
      `${"x".repeat(65)}@a.bc`,
      `a@${"b".repeat(64)}.cd`,
      "a@b.xn--p1ai",
      "UPPER@Example.COM",
      `${"a".repeat(60)}@${`${"b".repeat(60)}.`.repeat(4)}cd`,
    ];
    const mails = samples(alphabet, edges);
    const php = runDrupalPhp<boolean[]>(
      [],
      "echo json_encode(array_map(function ($m) { return filter_var($m, FILTER_VALIDATE_EMAIL) !== FALSE; }, $in));",
      mails,
    );
    const differing = mails.filter((mail, index) => validEmailAddress(mail) !== php[index]);
    expect(differing).toEqual([]);
  });

  it("refuses user names as user_validate_name()", () => {
    const alphabet = ["a", "Z", "0", " ", "  ", ".", "'", "-", "_", "@", "+", "<", "/", "é", "\u00a0", "\u200b", "\u202e", "\uff21", "\ufffd", "\u0001", "名"];
    const names = samples(alphabet, ["0", "", " a", "a ", "a  b", "a".repeat(61), "José", "O'Brien"]);
    const php = runDrupalPhp<Array<string | null>>(
      [["modules/user/user.module", "user_validate_name"]],
      "define('USERNAME_MAX_LENGTH', 60); echo json_encode(array_map(function ($n) { $e = user_validate_name($n); return $e === NULL ? NULL : $e; }, $in));",
      names,
    );
    const differing = names.filter((name, index) => (userNameError(name) ?? null) !== php[index]);
    expect(differing).toEqual([]);
  });

  it("makes one-time link hashes as user_pass_rehash()", () => {
    const cases = [
      {
        pass: "$S$DFq2kwFSsuaGikh0tMhXLfqbgFXvGmF6h4avJkjo1lclw59Y6cQM",
        timestamp: 1795897510,
        login: 1795897486,
        uid: "2",
        mail: "demo@example.com",
        salt: "CIEf-_x",
      },
      { pass: "U$S$9abcdefghaWREx4nSgjMWvJjDfjbr/hWyd5GnT.Y27ylRbujarsi", timestamp: 1, login: 0, uid: "17", mail: "ünï@example.com", salt: "" },
    ];
    // user_pass_rehash() reads the salt from drupal_get_hash_salt(): run it with that stubbed.
    const hashes = runDrupalPhp<string[]>(
      [
        ["includes/bootstrap.inc", "drupal_hmac_base64"],
        ["modules/user/user.module", "user_pass_rehash"],
      ],
      "function drupal_get_hash_salt() { return $GLOBALS['salt']; } $out = array(); foreach ($in as $c) { $GLOBALS['salt'] = $c['salt']; $out[] = user_pass_rehash($c['pass'], $c['timestamp'], $c['login'], $c['uid'], $c['mail']); } echo json_encode($out);",
      cases,
    );
    expect(cases.map((c) => userPassRehash(c.pass, c.timestamp, c.login, c.uid, c.mail, c.salt))).toEqual(hashes);
  });

  it("has _user_mail_text()'s default texts, tokens and all", () => {
    const keys = Object.keys(USER_MAIL_DEFAULTS) as UserMailTemplateKey[];
    const texts = runDrupalPhp<string[]>(
      [["modules/user/user.module", "_user_mail_text"]],
      "function variable_get($name, $default) { return $default; } echo json_encode(array_map(function ($k) { return _user_mail_text($k, NULL, array(), FALSE); }, $in));",
      keys,
    );
    expect(Object.fromEntries(keys.map((key, index) => [key, texts[index]]))).toEqual(USER_MAIL_DEFAULTS);
  });

  it("wraps mail as drupal_wrap_mail() over PHP's wordwrap()", () => {
    const alphabet = [
      "a",
      "bb",
      "word ",
      "longerword ",
      "x".repeat(80),
      "é",
      "ünïcödé ",
      "--",
      "-- ",
      " ",
      "  ",
      "\n",
      "\n\n",
      ">",
      "From ",
      "http://127.0.0.1:22610/user/reset/5/1795897504/e9l-U74O0XVyGgf1w7N2wajXiOkD-1FDlhA8gw1jQwo ",
    ];
    const texts = samples(alphabet, ["--  team", "-- \nsig", "a  \nb", "From here", "x".repeat(1000)], 800);
    const php = runDrupalPhp<string[]>(
      [
        ["includes/mail.inc", "drupal_wrap_mail"],
        ["includes/mail.inc", "_drupal_wrap_mail_line"],
        ["includes/mail.inc", "_drupal_html_to_text_clean"],
      ],
      // drupal_html_to_text() of plain text: trimmed, entities decoded, wrapped with a final line break; then format()'s wrap.
      "$out = array(); foreach ($in as $t) { $x = trim(html_entity_decode($t, ENT_QUOTES, 'UTF-8')); $out[] = array(drupal_wrap_mail($t), drupal_wrap_mail(strlen($x) ? drupal_wrap_mail($x) . \"\\n\" : '')); } echo json_encode($out, JSON_INVALID_UTF8_SUBSTITUTE);",
      texts,
    );
    const differing = texts.filter((text, index) => drupalWrapMail(text) !== php[index]![0] || formatMailBody([text]) !== php[index]![1]);
    expect(differing).toEqual([]);
  });

  it("cuts lines as PHP's wordwrap() does, byte for byte", () => {
    const cases = fc.sample(
      fc.tuple(
        fc.array(fc.constantFrom("a", "bb", "ccc", " ", "é", "\n", "|"), { maxLength: 40 }).map((parts) => parts.join("")),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(" \n", "\n", "|", "--"),
        fc.boolean(),
      ),
      { numRuns: 1500, seed: 37 },
    );
    const php = runDrupalPhp<string[]>(
      [],
      "echo json_encode(array_map(function ($c) { return wordwrap($c[0], $c[1], $c[2], $c[3]); }, $in), JSON_INVALID_UTF8_SUBSTITUTE);",
      cases,
    );
    const differing = cases.filter((c, index) => phpWordwrap(...c) !== php[index]);
    expect(differing).toEqual([]);
  });
});
