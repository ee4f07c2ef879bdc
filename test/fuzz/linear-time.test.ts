/**
 * Every parser that reads what a client sends (or what a Drupal database row holds) takes
 * time linear in its input, whatever the input repeats. A super-linear parser turns one
 * 16 KB header into seconds of event-loop time for every other client.
 *
 * Two checks, neither a wall-clock threshold: where the work can be counted (characters
 * examined by `indexOf`), the count must stay within a small multiple of the input's
 * length; otherwise the cost of an input 16 times longer, taken as the best of repeated
 * runs, must stay under 64 times the cost of the short one (linear work gives about 16,
 * quadratic about 256).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { reasonPhrase, SessionAuthError } from "services-session-auth";
import { phpUnserialize, userDataField } from "../../src/drupal/php-unserialize.js";
import { readCookies } from "../../src/cookie/cookie-headers.js";
import { parseRequestBody, requestMime } from "../../src/http-input/body.js";
import { notFoundReply } from "../../src/endpoint/not-found.js";
import { errorReply } from "../../src/wire/reply.js";
import { queryRouter } from "../../src/http-input/target.js";
import { matchAction } from "../../src/endpoint/routing.js";
import { negotiateFormat } from "../../src/http-input/negotiate.js";
import { parseMultipart } from "../../src/http-input/multipart.js";

const GROWTH = 16;
const BOUND = 64;

/** Seconds per call of `run(input)`: the best of several timed batches, each long enough to time. */
function costPerCall(run: (input: string) => unknown, input: string): number {
  let best = Infinity;
  for (let trial = 0; trial < 5; trial++) {
    let calls = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    do {
      run(input);
      calls += 1;
      elapsed = process.hrtime.bigint() - start;
    } while (elapsed < 4_000_000n);
    best = Math.min(best, Number(elapsed) / calls);
  }
  return best;
}

/** How much more an input `GROWTH` times longer costs; retried once, as a busy machine only ever inflates a ratio. */
function growth(run: (input: string) => unknown, make: (n: number) => string, n: number): number {
  const once = () => costPerCall(run, make(n * GROWTH)) / costPerCall(run, make(n));
  const first = once();
  return first < BOUND ? first : Math.min(first, once());
}

/** Characters `String.prototype.indexOf` and `Buffer.prototype.indexOf` examine while `run` runs. */
function charactersScanned(run: () => unknown): number {
  const stringIndexOf = String.prototype.indexOf;
  const bufferIndexOf = Buffer.prototype.indexOf;
  let scanned = 0;
  const count = (length: number, from: number, at: number) => {
    scanned += (at === -1 ? length : at + 1) - Math.max(0, from);
  };
  String.prototype.indexOf = function (this: string, search: string, from?: number) {
    const at = stringIndexOf.call(this, search, from);
    count(this.length, from ?? 0, at);
    return at;
  };
  Buffer.prototype.indexOf = function (this: Buffer, ...args: Parameters<Buffer["indexOf"]>) {
    const at = bufferIndexOf.apply(this, args);
    count(this.length, typeof args[1] === "number" ? args[1] : 0, at);
    return at;
  } as Buffer["indexOf"];
  try {
    run();
  } finally {
    String.prototype.indexOf = stringIndexOf;
    Buffer.prototype.indexOf = bufferIndexOf;
  }
  return scanned;
}

// The characters the parsers split, nest or match on, and a few that they do not.
const DELIMITERS = ["<", ">", ";", "=", "/", ".", ":", '"', "'", "{", "}", "%", "&", "\\", " ", "1", "a", "e", "-", "+", "\t", "*", "[", ","];
const unit = fc.array(fc.constantFrom(...DELIMITERS), { minLength: 1, maxLength: 3 }).map((chars) => chars.join(""));
const adversarial = fc.record({
  unit,
  prefix: fc.constantFrom("", "a", "<", "d:", 's:1:"', "a:1:{", "x=", "/"),
  suffix: fc.constantFrom("", "x", "!", ">", ";", "\u0000", "=1"),
});

type Parser = readonly [name: string, run: (input: string) => unknown, n: number];

const queryPath = queryRouter({ queryPaths: ["/", "/index.php"], endpointPath: "/services/json", queryRoutes: [] });

const PARSERS: readonly Parser[] = [
  // Headers are at most 16 KB in Node: n and 16n straddle that. Bodies go to the 64 KB default limit.
  ["reasonPhrase", (text) => reasonPhrase(406, `Unsupported request content type ${text}`), 1000],
  ["the 406 reply for a Content-Type", (text) => errorReply(new SessionAuthError("ERR_UNSUPPORTED_CONTENT_TYPE", requestMime(text))), 1000],
  ["requestMime", (text) => requestMime(text), 1000],
  ["readCookies", (text) => readCookies(text, "SESSabc"), 1000],
  ["the ?q= path rewriter", (text) => queryPath(`/?q=services/json/${encodeURIComponent(text)}&x=${text}`), 1000],
  ["matchAction", (text) => matchAction(text), 1000],
  ["negotiateFormat (Accept)", (text) => attempt(() => negotiateFormat(undefined, text)), 1000],
  ["negotiateFormat (Accept of many ranges)", (text) => attempt(() => negotiateFormat(undefined, `text/html;q=0.1, ${text}, application/json`)), 1000],
  ["negotiateFormat (Accept repeated, as Node joins it)", (text) => attempt(() => negotiateFormat(undefined, `${text}, , ${text}`)), 1000],
  ["notFoundReply", (text) => notFoundReply({ path: text, mounted: true, method: "GET", methodOverride: undefined, methodParam: undefined }, new Set()), 1000],
  ["parseRequestBody (JSON)", (text) => tryParse(text, "application/json"), 4000],
  ["parseRequestBody (form)", (text) => tryParse(text, "application/x-www-form-urlencoded"), 4000],
  ["phpUnserialize", (text) => phpUnserialize(text), 4000],
  [
    "parseMultipart (field value)",
    (text) => parseMultipart(Buffer.from(`--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n${text}\r\n--b--\r\n`), "multipart/form-data; boundary=b"),
    4000,
  ],
  [
    "parseMultipart (part headers)",
    (text) =>
      parseMultipart(Buffer.from(`--b\r\nContent-Disposition: form-data; name="${text}"; x=${text}\r\n\r\nv\r\n--b--\r\n`), "multipart/form-data; boundary=b"),
    4000,
  ],
  ["parseMultipart (boundary)", (text) => parseMultipart(Buffer.from(text), `multipart/form-data; boundary=${text.slice(0, 70)}`), 4000],
];

/** Runs a parser that refuses what it cannot read by throwing: the refusal costs time too. */
function attempt(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    return error;
  }
}

const PARSERS_ON = new Set(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"] as const);

/** Parses, for its cost; a refused body is its error. */
function tryParse(text: string, contentType: string): unknown {
  try {
    return parseRequestBody(Buffer.from(text), contentType, PARSERS_ON);
  } catch (error) {
    return error;
  }
}

describe("parsers of untrusted input take linear time", () => {
  for (const [name, run, n] of PARSERS) {
    it(`${name}: 16 times the input costs well under 64 times as much, for any repeated pattern`, () => {
      fc.assert(
        fc.property(adversarial, ({ unit, prefix, suffix }) => {
          const make = (size: number) => prefix + unit.repeat(Math.ceil(size / unit.length)) + suffix;
          const ratio = growth(run, make, n);
          expect(ratio, `${JSON.stringify(prefix)} + ${JSON.stringify(unit)}… + ${JSON.stringify(suffix)}`).toBeLessThan(BOUND);
        }),
        { seed: 1111, numRuns: 6 },
      );
    }, 60_000);
  }

  it("the inputs of the issue: 16,000 '<' in a Content-Type and 40,000 digits in a users.data float", () => {
    expect(
      growth(
        (text) => reasonPhrase(406, text),
        (size) => "<".repeat(size),
        1000,
      ),
    ).toBeLessThan(BOUND);
    expect(
      growth(
        (text) => userDataField(text),
        (size) => `d:${"1".repeat(size)}x;`,
        2500,
      ),
    ).toBeLessThan(BOUND);
    expect(
      growth(
        (text) => userDataField(text),
        (size) => `a:1:{i:0;d:${"1".repeat(size)}.${"1".repeat(size)}e;}`,
        2500,
      ),
    ).toBeLessThan(BOUND);
  }, 60_000);

  it("readCookies looks at each character of a Cookie header a bounded number of times", () => {
    for (const header of [
      ";".repeat(16_000) + "a=b",
      "=".repeat(16_000),
      "a".repeat(16_000),
      "; a=b".repeat(3000),
      `${"x=1;".repeat(4000)}SESSabc=v`,
      Array.from({ length: 2000 }, (_, i) => `SESSabc=${i}`).join("; "),
    ]) {
      const scanned = charactersScanned(() => readCookies(header, "SESSabc"));
      expect(scanned, header.slice(0, 20)).toBeLessThanOrEqual(3 * header.length);
    }
  });

  it("phpUnserialize looks at each byte a bounded number of times", () => {
    const inputs = [
      `a:4000:{${"i:0;i:1;".repeat(4000)}}`,
      `a:1:{${'s:1:"a";'.repeat(8000)}`,
      `s:${"9".repeat(16_000)}`,
      `${"a:1:{i:0;".repeat(31)}d:${"7".repeat(10_000)};`,
    ];
    for (const input of inputs) {
      const scanned = charactersScanned(() => phpUnserialize(input));
      expect(scanned, input.slice(0, 20)).toBeLessThanOrEqual(3 * Buffer.byteLength(input));
    }
  });

  it("reasonPhrase strips tags as PHP does and echoes at most 256 characters of the message", () => {
    expect(reasonPhrase(406, "<".repeat(16_000))).toBe("Not Acceptable : ");
    expect(reasonPhrase(406, "a < b and c > d")).toBe("Not Acceptable : a < b and c > d");
    expect(reasonPhrase(403, 'x <a title="1 > 0">y</a> <b <i>>z</b>')).toBe(": x y z");
    expect(reasonPhrase(404, "unclosed <em class")).toBe("Not found : unclosed ");
    expect(reasonPhrase(404, "x".repeat(16_000))).toBe(`Not found : ${"x".repeat(256)}`);
  });

  it("a 406 for a 16,000-character Content-Type echoes 128 characters of it, in the status line and the body", () => {
    const mime = `text/${"<".repeat(8000)}${"a".repeat(8000)}`;
    const reply = errorReply(new SessionAuthError("ERR_UNSUPPORTED_CONTENT_TYPE", requestMime(mime)));
    const echoed = mime.slice(0, 128);
    expect(reply.body).toBe(JSON.stringify([`Unsupported request content type ${echoed}`]));
    expect(reply.reason).toBe("Not Acceptable : Unsupported request content type text/");
  });
});
