import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseForm } from "../../src/http-input/form.js";

/** What the parser replaces: URLSearchParams over the body as UTF-8, the first 1,000 pairs, the last of a name winning. */
function reference(text: string): Record<string, string> {
  const fields = new Map<string, string>();
  let pairs = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++pairs > 1000) break;
    fields.set(name, value);
  }
  return Object.fromEntries(fields);
}

describe("parseForm", () => {
  it("reads a form body as URLSearchParams does, on any mix of separators and escapes", () => {
    const unit = fc.constantFrom("a", "b", "=", "&", "+", "%", "2", "0", "F", "%C3", "%A9", "%zz", "%e9", "%2", " ", "__proto__");
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const text = units.join("");
        expect(parseForm(Buffer.from(text)), JSON.stringify(text)).toEqual(reference(text));
      }),
      { seed: 2026, numRuns: 5000 },
    );
  });

  it("reads raw UTF-8 and escaped bytes as one byte sequence, as PHP does (and the URL standard)", () => {
    expect(parseForm(Buffer.from("é=%C3%A9&name=Zo%C3%AB+%C3%9C"))).toEqual({ é: "é", name: "Zoë Ü" });
    // A raw é (C3 A9) and an escaped A9: one valid character, then a stray byte.
    expect(parseForm(Buffer.from("é%A9"))).toEqual({ "é\uFFFD": "" });
  });

  it("keeps the first 1,000 pairs, as PHP's max_input_vars, and a __proto__ field as a plain key", () => {
    const body = Array.from({ length: 1200 }, (_, i) => `f${i}=${i}`).join("&");
    const fields = parseForm(Buffer.from(body));
    expect(Object.keys(fields)).toHaveLength(1000);
    expect(fields.f999).toBe("999");
    const polluted = parseForm(Buffer.from("__proto__=x&username=demo"));
    expect(Object.getPrototypeOf(polluted)).toBe(Object.prototype);
    expect(Object.keys(polluted)).toEqual(["__proto__", "username"]);
  });
});
