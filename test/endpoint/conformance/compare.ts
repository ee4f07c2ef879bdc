import { createHash } from "node:crypto";
import type { RawResponse } from "./raw-http.js";
import { bodyBytes, type RecordedRequest, type RecordedResponse, type Varying } from "./transcript.js";

/** One way a reply differs from the recorded one. */
export interface Difference {
  readonly step: number;
  /** What differs: `status`, `header content-type`, `set-cookie count`, `set-cookie[0] expires`, `$.user.changed`, `body`, … */
  readonly where: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

/** Headers that depend on the connection, not on Drupal (the recording's `ignoredHeaders`). */
const CONNECTION_HEADERS = new Set(["date", "connection", "keep-alive", "host", "content-length", "transfer-encoding", "x-powered-by"]);
/** The one header that differs on every reply, on purpose: replies carry session ids and tokens, so `no-store`. */
const CACHE_CONTROL = { recorded: "no-cache, must-revalidate", ours: "no-store" };
const OPAQUE_VALUE = /^[\w-]{43}$/;
const COOKIE_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const EPOCH = "Thu, 01 Jan 1970 00:00:01 GMT";

/**
 * Replays one scenario's steps and compares each reply with the recorded one. It carries
 * the values that vary per run from step to step, as the recording's README says: a raw
 * session id, token or hashed id the real site gave is replaced, wherever a later request
 * sends it, by the value this server gave at the same place. Varying values are compared
 * by the pattern of equality they form (the same raw value twice must be the same value
 * here; a new one must be new here) and by shape; everything else exactly.
 */
export class ScenarioReplay {
  /** Raw value in the recording → the value this server gave in its place. */
  readonly #values = new Map<string, string>();

  /** A recorded request with the values carried so far put in; Content-Length follows the body. */
  request(recorded: RecordedRequest): { target: string; headers: Array<[string, string]>; body: Buffer } {
    const body = Buffer.from(this.#substitute(bodyBytes(recorded.body, recorded.bodyEncoding).toString("utf8")), "utf8");
    const headers = recorded.headers.map(([name, value]): [string, string] =>
      name.toLowerCase() === "content-length" ? [name, String(body.length)] : [name, this.#substitute(value)],
    );
    return { target: this.#substitute(recorded.target), headers, body };
  }

  /** The differences between this server's reply and the recorded one, at step `step`. */
  compare(step: number, recorded: { request: RecordedRequest; response: RecordedResponse }, ours: RawResponse, varying: readonly Varying[]): Difference[] {
    const out: Difference[] = [];
    const diff = (where: string, expected: unknown, actual: unknown) => out.push({ step, where, expected, actual });
    const here = new Map(varying.filter((v) => v.step === step).map((v) => [v.where, v]));
    const requestText = JSON.stringify(recorded.request);
    const value = (where: string, kind: Varying["kind"], raw: unknown, actual: unknown) =>
      this.#varying(where, kind, raw, actual, requestText, recorded.request, diff);

    const { response } = recorded;
    if (ours.status !== response.status || ours.reason !== response.reason)
      diff("status", `${response.status} ${response.reason}`, `${ours.status} ${ours.reason}`);

    const expectedHeaders = headerMap(response.headers);
    const ourHeaders = headerMap(ours.headers);
    for (const name of new Set([...expectedHeaders.keys(), ...ourHeaders.keys()])) {
      if (CONNECTION_HEADERS.has(name)) continue;
      const expected = expectedHeaders.get(name) ?? [];
      const actual = ourHeaders.get(name) ?? [];
      if (name === "set-cookie") this.#compareCookies(expected, actual, ours.arrivedAt, here, value, diff);
      else if (name === "cache-control") {
        if (expected.join() !== CACHE_CONTROL.recorded || actual.join() !== CACHE_CONTROL.ours) diff("header cache-control", expected, actual);
      } else if (expected.join("\n") !== actual.join("\n")) diff(`header ${name}`, expected, actual);
    }

    const expectedBody = bodyBytes(response.body, response.bodyEncoding).toString("utf8");
    const ourBody = ours.body.toString("utf8");
    const expectedJson = parseJson(expectedBody);
    if (expectedJson !== undefined) {
      const ourJson = parseJson(ourBody);
      if (ourJson === undefined) diff("body", expectedBody.slice(0, 300), ourBody.slice(0, 300));
      else this.#compareJson("$", expectedJson.value, ourJson.value, here, value, diff);
    } else if (here.has("body")) {
      value("body", here.get("body")!.kind, expectedBody, ourBody);
    } else if (expectedBody !== ourBody) {
      diff("body", expectedBody.slice(0, 300), ourBody.slice(0, 300));
    }
    return out;
  }

  #compareJson(path: string, expected: unknown, actual: unknown, here: ReadonlyMap<string, Varying>, value: ValueCheck, diff: DiffSink): void {
    const varying = here.get(path);
    if (varying !== undefined) return void value(path, varying.kind, expected, actual);
    if (typeof expected === "object" && expected !== null) {
      if (typeof actual !== "object" || actual === null || Array.isArray(expected) !== Array.isArray(actual)) return void diff(path, expected, actual);
      const keys = Object.keys(expected);
      // Key order is part of the wire format: clients that compare bytes or print bodies see it.
      if (keys.join() !== Object.keys(actual).join()) return void diff(`${path} keys`, keys, Object.keys(actual));
      for (const key of keys) {
        const child = Array.isArray(expected) ? `${path}[${key}]` : `${path}.${key}`;
        this.#compareJson(child, (expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], here, value, diff);
      }
    } else if (expected !== actual) {
      diff(path, expected, actual);
    }
  }

  #compareCookies(
    expected: readonly string[],
    actual: readonly string[],
    arrivedAt: number,
    here: ReadonlyMap<string, Varying>,
    value: ValueCheck,
    diff: DiffSink,
  ): void {
    if (expected.length !== actual.length) diff("set-cookie count", expected, actual);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const want = parseCookie(expected[i]!);
      const got = parseCookie(actual[i]!);
      const at = `set-cookie[${i}]`;
      if (here.has("set-cookie.name")) value(`${at} name`, "SESSNAME", want.name, got.name);
      else if (want.name !== got.name) diff(`${at} name`, want.name, got.name);
      if (want.value === "deleted" || !here.has("set-cookie.value")) {
        if (want.value !== got.value) diff(`${at} value`, want.value, got.value);
      } else {
        value(`${at} value`, "SID", want.value, got.value);
      }
      // Attribute names in order and case, as PHP writes them; values exactly, but for a future expiry.
      if (want.attributes.map(([name]) => name).join() !== got.attributes.map(([name]) => name).join())
        diff(`${at} attributes`, want.attributes, got.attributes);
      for (const [name, wanted] of want.attributes) {
        const had = got.attributes.find(([other]) => other === name)?.[1];
        if (name === "expires" && wanted !== EPOCH) {
          const maxAge = Number(got.attributes.find(([other]) => other === "Max-Age")?.[1]);
          const expires = Date.parse(had ?? "") / 1000;
          if (had === undefined || !COOKIE_DATE.test(had) || Math.abs(expires - (arrivedAt + maxAge)) > 5)
            diff(`${at} expires`, `arrival + Max-Age (${wanted})`, had);
        } else if (had !== wanted) {
          diff(`${at} ${name}`, wanted, had);
        }
      }
    }
  }

  /**
   * A value of a varying kind. The session name is derived from the Host sent (the recorded
   * one) and the scheme, so it must be exactly Drupal's. Ids and tokens: one the scenario saw before, or one
   * the request itself carried (an echoed cookie), must be that value as this server knows it;
   * a new one must be new here too, and shaped like Drupal's. Timestamps keep their JSON type.
   */
  #varying(where: string, kind: Varying["kind"], raw: unknown, actual: unknown, requestText: string, request: RecordedRequest, diff: DiffSink): void {
    if (kind === "TS") {
      if (typeof actual !== typeof raw || !/^\d+$/.test(String(actual))) diff(where, `a timestamp like ${JSON.stringify(raw)}`, actual);
      return;
    }
    if (kind === "SESSNAME") {
      const host = request.headers.find(([name]) => name.toLowerCase() === "host")?.[1] ?? "";
      // SSESS over HTTPS, with the same hash: the recorded name says which one was sent.
      const prefix = String(raw).startsWith("SSESS") ? "SSESS" : "SESS";
      const derived = `${prefix}${createHash("sha256").update(host.toLowerCase()).digest("hex").slice(0, 32)}`;
      if (actual !== derived || raw !== derived) diff(where, derived, actual);
      return;
    }
    const rawText = String(raw);
    const known = this.#values.get(rawText) ?? (requestText.includes(rawText) ? this.#substitute(rawText) : undefined);
    if (known !== undefined) {
      if (actual !== known) diff(where, `${kind} ${known} (as before)`, actual);
      return;
    }
    if (typeof actual !== "string" || !OPAQUE_VALUE.test(actual) || [...this.#values.values()].includes(actual)) {
      diff(where, `a new ${kind} (43 base64url characters)`, actual);
      return;
    }
    this.#values.set(rawText, actual);
  }

  #substitute(text: string): string {
    let out = text;
    for (const [raw, ours] of this.#values) out = out.replaceAll(raw, ours);
    return out;
  }
}

type DiffSink = (where: string, expected: unknown, actual: unknown) => void;
type ValueCheck = (where: string, kind: Varying["kind"], raw: unknown, actual: unknown) => void;

/** A body that is JSON, parsed (Drupal's PHP error pages go out as `application/json` too, and are not). */
function parseJson(text: string): { value: unknown } | undefined {
  if (text === "") return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function headerMap(headers: ReadonlyArray<readonly [string, string]>): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [name, value] of headers) map.set(name.toLowerCase(), [...(map.get(name.toLowerCase()) ?? []), value]);
  return map;
}

function parseCookie(header: string): { name: string; value: string; attributes: Array<[string, string | undefined]> } {
  const [pair, ...attributes] = header.split("; ");
  const eq = pair!.indexOf("=");
  return {
    name: pair!.slice(0, eq),
    value: pair!.slice(eq + 1),
    attributes: attributes.map((attribute) => {
      const at = attribute.indexOf("=");
      return at === -1 ? [attribute, undefined] : [attribute.slice(0, at), attribute.slice(at + 1)];
    }),
  };
}
