import { readFileSync } from "node:fs";

/** One request as the recording sent it: method, target, headers in order, body bytes. */
export interface RecordedRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string | null;
  readonly bodyEncoding: "utf8" | "base64" | null;
}

/** One response as the real Drupal 7 site sent it. */
export interface RecordedResponse {
  readonly status: number;
  readonly reason: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string;
  readonly bodyEncoding: "utf8" | "base64";
}

/** A value that differs on every run of the recording (see its README). */
export interface Varying {
  readonly step: number;
  /** A JSON path into the body (`$.user.sid`), `body`, `set-cookie.name` or `set-cookie.value`. */
  readonly where: string;
  readonly kind: "SID" | "SIDHASH" | "SESSNAME" | "TOKEN" | "TS" | "OPAQUE";
  readonly raw: string | number;
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly steps: ReadonlyArray<{ readonly request: RecordedRequest; readonly response: RecordedResponse }>;
  readonly varying?: readonly Varying[];
}

export interface Transcript {
  readonly scenarios: readonly Scenario[];
  readonly normalisation: { readonly ignoredHeaders: readonly string[] };
}

function recording(file: string): Transcript {
  return JSON.parse(readFileSync(new URL(`../../fixtures/drupal7-transcript/${file}`, import.meta.url), "utf8")) as Transcript;
}

/** The recording of a real Drupal 7.101 + Services 7.x-3.28 site, kept in the test fixtures with its README. */
export const transcript: Transcript = recording("transcript.json");

/** The same site answering over HTTPS (`X-Forwarded-Proto: https` from loopback), recorded later: the `SSESS…` cookie beside a `SESS…` one. */
export const httpsTranscript: Transcript = recording("https-transcript.json");

/** The bytes of a recorded body. */
export function bodyBytes(body: string | null, encoding: "utf8" | "base64" | null): Buffer {
  if (body === null) return Buffer.alloc(0);
  return Buffer.from(body, encoding === "base64" ? "base64" : "utf8");
}
