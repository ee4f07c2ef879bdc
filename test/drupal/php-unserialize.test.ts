import { describe, expect, it } from "vitest";
import { phpUnserialize, UNPARSEABLE, userDataField } from "../../src/drupal/php-unserialize.js";

describe("phpUnserialize", () => {
  it.each([
    ["N;", null],
    ["b:0;", false],
    ["b:1;", true],
    ["i:-42;", -42],
    ["d:0.5;", 0.5],
    ["d:1.0E+25;", 1e25],
    ['s:0:"";', ""],
    ['s:43:"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ";', "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"],
    // Byte lengths: "é" is 2 bytes, "✓" is 3.
    ['s:6:"é ✓";', "é ✓"],
    ['s:4:"a";b";', 'a";b'],
    ["a:0:{}", []],
    ['a:2:{i:0;s:1:"x";i:1;s:1:"y";}', ["x", "y"]],
    ['a:2:{i:1;s:1:"x";i:0;s:1:"y";}', { 1: "x", 0: "y" }],
    ['a:1:{s:7:"overlay";i:1;}', { overlay: 1 }],
    ['a:2:{s:7:"contact";i:0;s:5:"block";a:1:{s:6:"system";a:0:{}}}', { contact: 0, block: { system: [] } }],
    // What json_encode() writes: an object's public properties, a reference's target, a big integer as the nearest number.
    ['O:8:"stdClass":0:{}', {}],
    ['a:2:{i:0;O:8:"stdClass":1:{s:1:"a";i:1;}i:1;r:2;}', [{ a: 1 }, { a: 1 }]],
    ["i:9007199254740993;", 9007199254740992],
  ])("reads %s", (input, expected) => {
    expect(phpUnserialize(input)).toEqual(expected);
  });

  it.each([
    ["a:1:{i:0;R:1;}", "a value holding itself"],
    ["d:INF;", "infinite floats"],
    ['s:9:"short";', "a wrong string length"],
    ["i:1;junk", "trailing bytes"],
    ["a:1:{i:0;", "a truncated array"],
    ["a:-1:{}", "a negative count"],
    ["a:1:{d:0.5;i:1;}", "float keys"],
    ["a:1:{i:0;".repeat(600) + "N;" + "}".repeat(600), "nesting over json_encode()'s 512 levels"],
    ["", "empty input"],
  ])("refuses %s (%s)", (input) => {
    expect(phpUnserialize(input)).toBe(UNPARSEABLE);
  });

  it("keeps a __proto__ key as data", () => {
    const value = phpUnserialize('a:1:{s:9:"__proto__";a:1:{s:5:"admin";b:1;}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("reads bytes from a Buffer, as BLOB columns arrive", () => {
    expect(phpUnserialize(Buffer.from('a:1:{s:4:"name";s:2:"é";}'))).toEqual({ name: "é" });
  });
});

describe("userDataField", () => {
  it.each([null, undefined, "", "b:0;", Buffer.alloc(0), "d:NAN;"])("gives false for %j, as Drupal's login reply", (raw) => {
    expect(userDataField(raw as never)).toBe(false);
  });

  it("gives the unserialized array otherwise", () => {
    expect(userDataField('a:1:{s:7:"overlay";i:1;}')).toEqual({ overlay: 1 });
  });
});
