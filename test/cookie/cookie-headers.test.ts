import { describe, expect, it } from "vitest";
import { readCookies } from "../../src/cookie/cookie-headers.js";

describe("readCookies", () => {
  it("finds every distinct value of one name, in the order sent, up to the limit", () => {
    expect(readCookies("a=1; SESSx=one; b=2; SESSx=two; SESSx=one; SESSx=three; SESSx=four", "SESSx", 3)).toEqual(["one", "two", "three"]);
    expect(readCookies("SESSx=one", "SESSx", 1)).toEqual(["one"]);
    expect(readCookies(undefined, "SESSx", 3)).toEqual([]);
    expect(readCookies("", "SESSx", 3)).toEqual([]);
  });

  it("skips malformed pairs and empty values, trims, unquotes, and keeps an = inside a value", () => {
    expect(readCookies('junk; ;=; SESSx=; SESSx ; SESSx = "quoted" ; x=SESSx=no', "SESSx", 3)).toEqual(["quoted"]);
    expect(readCookies("SESSx=a=b; SESSxy=c", "SESSx", 3)).toEqual(["a=b"]);
    expect(readCookies("SESSxy=c; xSESSx=d", "SESSx", 3)).toEqual([]);
  });

  it("reads the name behind thousands of pairs without one", () => {
    expect(readCookies(`${"a;".repeat(8000)}SESSx=last`, "SESSx", 3)).toEqual(["last"]);
    expect(readCookies(`${"a=1;".repeat(4000)}SESSx=last`, "SESSx", 3)).toEqual(["last"]);
  });
});
