/**
 * Conformance with a real Drupal 7 site: every scenario of the recording in
 * test/fixtures/drupal7-transcript (Drupal 7.101 + Services 7.x-3.28, 123 scenarios, 201
 * requests), and of its later HTTPS recording (5 scenarios, 18 requests: the `SSESS…` cookie
 * beside a `SESS…` one, behind a loopback proxy's `X-Forwarded-Proto: https`), is replayed
 * over real HTTP on loopback against an app configured like the
 * recorded site, the raw requests sent as recorded (method, target, headers with the
 * recorded Host, body bytes), and each reply compared with Drupal's: status line, the
 * headers clients read (Content-Type, Set-Cookie with its attributes, order and expiry,
 * Vary, Expires, X-Content-Type-Options, and no header Drupal did not send), and the body
 * (JSON types, key order and every value that does not vary per run; text exactly).
 *
 * `Cache-Control` differs on every reply, on purpose (`no-store`: the replies carry session
 * ids and tokens). Each scenario runs on a fresh app: the recording ran them in one order
 * on one database, sharing its flood counters, and every scenario that depends on them
 * (flood-admin, the login-clears-failures ones) starts from clean counters there and here.
 *
 * A scenario either matches, or is in DELIBERATE below with the reason
 * docs/differences-from-drupal.md gives; each entry says which differences it allows, and
 * an entry whose scenario starts to match, or differs in any other way, fails.
 */
import { describe, expect, it } from "vitest";
import { ScenarioReplay, type Difference } from "./conformance/compare.js";
import { rawRequest } from "./conformance/raw-http.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";
import { recordedSite } from "./conformance/recorded-site.js";
import { httpsTranscript, transcript, type Scenario } from "./conformance/transcript.js";

interface Deliberate {
  readonly reason: string;
  /** Whether one difference is the one this entry is about. */
  readonly allows: (difference: Difference) => boolean;
  /** The status line this package answers instead, so that a change of the deliberate reply fails too. */
  readonly answers: string;
}

const PHP_TYPE_ERROR: Deliberate = {
  reason: "Drupal's PHP 8 TypeError page (a 500 with an HTML body) for an array or object credential: answered as the wrong credential it is",
  allows: (difference) => difference.step === 0,
  answers: "401 Unauthorized : Wrong username or password.",
};
// test/drupal/user-store.test.ts shows drupal7UserStore on MySQL matching these names as the recorded site did.
const MYSQL_COLLATION: Deliberate = {
  reason:
    "the memory user store matches names case-insensitively only; Drupal on MariaDB also ignored accents and trailing spaces (utf8mb3_general_ci), as drupal7UserStore does on MySQL",
  // The later steps (the token and logout of the session Drupal opened) differ because the login was refused.
  allows: () => true,
  answers: "401 Unauthorized : Wrong username or password.",
};

/** The scenarios that differ on purpose, each with its reason. Keep this list short: compatibility is the product. */
const DELIBERATE: Readonly<Record<string, Deliberate>> = {
  "login-array-username": PHP_TYPE_ERROR,
  "login-object-password": PHP_TYPE_ERROR,
  // PHP reads username[]=demo as an array named username; a form parser without PHP's brackets sees no username at all.
  "login-form-array-username": { ...PHP_TYPE_ERROR, answers: "401 Unauthorized : Missing required argument username" },
  "login-name-trailing-space": MYSQL_COLLATION,
  "login-name-accent": MYSQL_COLLATION,
  "accept-malformed": {
    reason:
      "Services' 500 \"malformed mime type\" (Mimeparse's uncaught exception) for an Accept range without a subtype: answered as the Accept that admits no JSON it is, Services' own 406",
    allows: (difference) => difference.step === 0 && difference.where === "status",
    answers: "406 Not Acceptable : Unknown or unsupported response format.",
  },
};

/** Every recorded scenario: the first recording's, then the HTTPS one's. */
const SCENARIOS: readonly Scenario[] = [...transcript.scenarios, ...httpsTranscript.scenarios];

// One table of cases, every binding: the same scenarios and the same deliberate differences.
describe.each(FRAMEWORKS)("conformance with the recorded Drupal 7 site, on %s", (framework) => {
  const outcomes = new Map<string, "matched" | "deliberate">();

  it.each(SCENARIOS.map((scenario) => [scenario.id, scenario] as const))("%s", async (id, scenario) => {
    const { port, close } = await recordedSite(framework);
    const replay = new ScenarioReplay();
    const differences: Difference[] = [];
    try {
      for (const [step, recorded] of scenario.steps.entries()) {
        const { target, headers, body } = replay.request(recorded.request);
        const reply = await rawRequest(port, recorded.request.method, target, headers, body);
        differences.push(...replay.compare(step, recorded, reply, scenario.varying ?? []));
      }
    } finally {
      await close();
    }

    const deliberate = DELIBERATE[id];
    if (deliberate === undefined) {
      expect(differences, `${scenario.title}`).toEqual([]);
      outcomes.set(id, "matched");
      return;
    }
    expect(differences.length, `${id} now matches Drupal: take it off the deliberate list`).toBeGreaterThan(0);
    expect(
      differences.filter((difference) => !deliberate.allows(difference)),
      `${id}: differences beyond "${deliberate.reason}"`,
    ).toEqual([]);
    expect(differences.find((difference) => difference.step === 0 && difference.where === "status")?.actual, `${id}: the deliberate reply`).toBe(
      deliberate.answers,
    );
    outcomes.set(id, "deliberate");
  });

  it("matches every scenario but the deliberate ones, and counts them", () => {
    const matched = [...outcomes.values()].filter((outcome) => outcome === "matched").length;
    const deliberate = [...outcomes].filter(([, outcome]) => outcome === "deliberate").map(([id]) => id);
    console.log(
      `\n  Drupal 7 conformance on ${framework}: ${matched} of ${SCENARIOS.length} scenarios match the recordings, ${deliberate.length} differ on purpose:`,
    );
    for (const id of deliberate) console.log(`    ${id}: ${DELIBERATE[id]!.reason}`);
    console.log("    and on every reply: Cache-Control: no-store where Drupal sent no-cache, must-revalidate (the replies carry session ids and tokens)");
    expect([transcript.scenarios.length, httpsTranscript.scenarios.length]).toEqual([123, 5]);
    expect(matched + deliberate.length).toBe(SCENARIOS.length);
    expect(deliberate.sort()).toEqual(Object.keys(DELIBERATE).sort());
  });
});
