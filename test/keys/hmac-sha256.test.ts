import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hmacSha256 } from "../../src/keys/hmac-sha256.js";

describe("hmacSha256", () => {
  it("gives the bytes of createHmac('sha256', key), for keys shorter and longer than a block and any text", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.string({ unit: "grapheme", maxLength: 80 }), (key, message) => {
        expect(hmacSha256(key)(message).equals(createHmac("sha256", key).update(message).digest())).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("matches RFC 4231 test case 2", () => {
    const mac = hmacSha256(Buffer.from("Jefe"));
    expect(mac("what do ya want for nothing?").toString("hex")).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });
});
