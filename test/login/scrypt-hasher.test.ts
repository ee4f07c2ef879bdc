import { describe, expect, it } from "vitest";
import { scryptHasher } from "services-session-auth";

describe("scryptHasher", () => {
  const hasher = scryptHasher({ logN: 10 });

  it("hashes to a PHC string that verifies, with a fresh salt each time", async () => {
    const a = await hasher.hash("correct horse");
    const b = await hasher.hash("correct horse");
    expect(a).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await hasher.verify(a, "correct horse")).toBe(true);
    expect(await hasher.verify(a, "correct horsE")).toBe(false);
  });

  it("normalises passwords with NFKC, so composed and decomposed forms match", async () => {
    const hash = await hasher.hash("caf\u00e9");
    expect(await hasher.verify(hash, "cafe\u0301")).toBe(true);
  });

  it("answers false, never throws, for malformed hashes or hostile parameters", async () => {
    for (const bad of ["", "plain", "$scrypt$ln=99,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$" + "A".repeat(43), "$2b$10$abc", "$S$Dxxx"]) {
      expect(await hasher.verify(bad, "x")).toBe(false);
    }
  });

  it("uses OWASP's parameters by default and asks to rehash other parameters", async () => {
    const strong = scryptHasher();
    expect(strong.needsRehash(await hasher.hash("x"))).toBe(true);
    expect(hasher.needsRehash(await hasher.hash("x"))).toBe(false);
    expect(hasher.needsRehash("$S$Dsomething")).toBe(true);
  });

  it("rejects out-of-range parameters at start-up", () => {
    expect(() => scryptHasher({ logN: 40 })).toThrow(TypeError);
    expect(() => scryptHasher({ r: 0 })).toThrow(TypeError);
  });
});
