import { describe, expect, it } from "vitest";
import { readCookies } from "../../src/cookie/cookie-headers.js";

describe("readCookies", () => {
  it("finds every distinct value of one name, in the order sent, however many there are", () => {
    expect(readCookies("a=1; SESSx=one; b=2; SESSx=two; SESSx=one; SESSx=three; SESSx=four", "SESSx")).toEqual(["one", "two", "three", "four"]);
    const many = Array.from({ length: 2000 }, (_, i) => `v${i}`);
    expect(readCookies(many.map((value) => `SESSx=${value}`).join("; "), "SESSx")).toEqual(many);
    expect(readCookies("SESSx=one", "SESSx")).toEqual(["one"]);
    expect(readCookies(undefined, "SESSx")).toEqual([]);
    expect(readCookies("", "SESSx")).toEqual([]);
  });

  it("skips malformed pairs and empty values, trims, unquotes, and keeps an = inside a value", () => {
    expect(readCookies('junk; ;=; SESSx=; SESSx ; SESSx = "quoted" ; x=SESSx=no', "SESSx")).toEqual(["quoted"]);
    expect(readCookies("SESSx=a=b; SESSxy=c", "SESSx")).toEqual(["a=b"]);
    expect(readCookies("SESSxy=c; xSESSx=d", "SESSx")).toEqual([]);
  });

  it("reads the name behind thousands of pairs without one", () => {
    expect(readCookies(`${"a;".repeat(8000)}SESSx=last`, "SESSx")).toEqual(["last"]);
    expect(readCookies(`${"a=1;".repeat(4000)}SESSx=last`, "SESSx")).toEqual(["last"]);
  });
});
