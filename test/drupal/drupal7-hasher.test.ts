import type * as NodeCrypto from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { scryptHasher } from "../../src/login/scrypt-hasher.js";
import { drupal7Hasher, upgradingHasher } from "../../src/drupal/index.js";
import type { PasswordHasher } from "../../src/types.js";

interface Vector {
  password: string;
  hash: string;
  note: string;
}

// Made by test/fixtures/drupal7/make-hash-vectors.py, an independent Python/hashlib port
// (see its docstring); regenerate with `python3 make-hash-vectors.py > hash-vectors.json`.
// createHash stays the real one; the mock only counts digests per algorithm, so the
// hostile-count test can prove that no hashing happened instead of timing it.
const digests = vi.hoisted(() => new Map<string, number>());
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof NodeCrypto>();
  const createHash: typeof crypto.createHash = (algorithm, options) => {
    digests.set(algorithm, (digests.get(algorithm) ?? 0) + 1);
    return crypto.createHash(algorithm, options);
  };
  return { ...crypto, createHash };
});

const generated = JSON.parse(readFileSync(new URL("../fixtures/drupal7/hash-vectors.json", import.meta.url), "utf8")) as { vectors: Vector[] };

describe("drupal7Hasher: published vectors", () => {
  const hasher = drupal7Hasher();

  // From wegolook/node-drupal-hash test/test.js, a Drupal-written hash of a known password.
  it.each([
    ["derpalicious", "$S$D8kwCLZGWoVb9CflvNZFX797Jrhf7RfIrBYmW3tHlYCQ7D.l7mLb"],
    ["derpalicious", "$P$DxTIL/YfZCdJtFYNh1Ef9ERbMBkuQ91"],
    ["password1234", "$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI"],
  ])("verifies %s against %s (node-drupal-hash tests)", async (password, hash) => {
    await expect(hasher.verify(hash, password)).resolves.toBe(true);
    await expect(hasher.verify(hash, `${password}!`)).resolves.toBe(false);
  });

  // Computed with Drupal's _password_crypt() (count 11, salt "abcdefgh"), as user_update_7000 writes them.
  it("verifies a U$ vector (an MD5 hash rehashed by user_update_7000)", async () => {
    const hash = "U$S$9abcdefghaWREx4nSgjMWvJjDfjbr/hWyd5GnT.Y27ylRbujarsi";
    await expect(hasher.verify(hash, "derpalicious")).resolves.toBe(true);
    await expect(hasher.verify(hash, "Derpalicious")).resolves.toBe(false);
  });
});

describe("drupal7Hasher: vectors from the independent Python port", () => {
  const hasher = drupal7Hasher();

  it.each(generated.vectors.map((v) => [v.note, v] as const))("%s", async (_note, vector) => {
    await expect(hasher.verify(vector.hash, vector.password)).resolves.toBe(true);
    await expect(hasher.verify(vector.hash, `${vector.password}x`)).resolves.toBe(false);
  });
});

describe("drupal7Hasher: refusals", () => {
  const hasher = drupal7Hasher();
  const max = generated.vectors.find((v) => v.password.length === 512 && v.hash.startsWith("$S$"))!;

  it("refuses a password over 512 bytes where _password_crypt() does, before any hashing", async () => {
    digests.clear();
    await expect(hasher.verify(max.hash, `${max.password}x`)).resolves.toBe(false);
    await expect(hasher.verify("$P$DxTIL/YfZCdJtFYNh1Ef9ERbMBkuQ91", "derpalicious".repeat(50))).resolves.toBe(false);
    expect(digests.size).toBe(0);
    // 256 two-byte characters are 512 bytes; one more ASCII byte is over. hash() rejects, as
    // user_hash_password() returns FALSE; it never throws synchronously.
    const over = "é".repeat(256) + "a";
    let pending: Promise<string> | undefined;
    expect(() => (pending = hasher.hash(over))).not.toThrow();
    await expect(pending).rejects.toThrow(RangeError);
  });

  it("checks a U$ hash against the MD5 hex, so a 600-byte password verifies there as on Drupal", async () => {
    const long = generated.vectors.find((v) => v.hash.startsWith("U$") && Buffer.byteLength(v.password) === 600)!;
    await expect(hasher.verify(long.hash, long.password)).resolves.toBe(true);
    await expect(hasher.verify(long.hash, `${long.password}y`)).resolves.toBe(false);
    // The same password cannot be given a new Drupal hash: the rehash must be skipped, not the login.
    await expect(hasher.hash(long.password)).rejects.toThrow(RangeError);
  });

  it.each([
    ["a null hash", null, "password1234"],
    ["a numeric hash", 0, "password1234"],
    ["an undefined password", "$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI", undefined],
    ["a numeric password", "U$S$9abcdefghaWREx4nSgjMWvJjDfjbr/hWyd5GnT.Y27ylRbujarsi", 1234],
  ])("resolves false for %s from an untyped caller", async (_name, hash, password) => {
    await expect(hasher.verify(hash as never, password as never)).resolves.toBe(false);
  });

  it("never rejects, for any hash and password strings", async () => {
    // The cheapest cost Drupal allows keeps each run to at most 129 digests.
    const cheap = drupal7Hasher({ countLog2: 7, maxCountLog2: 7 });
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: "binary", maxLength: 80 }),
      fc.string({ unit: "grapheme", minLength: 500, maxLength: 700 }),
    );
    const prefix = fc.constantFrom("", "$S$", "$P$", "$H$", "U$S$", "U$P$", "U$", "$S$5", "U$S$5", "$P$5", "$S$.");
    await fc.assert(
      fc.asyncProperty(prefix, text, text, async (head, tail, password) => {
        const result = await cheap.verify(head + tail, password);
        expect(typeof result).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ["empty", ""],
    ["a prefix only", "$S$"],
    ["an unknown algorithm", "$X$DabcdefghiZCkJFhCv7GrC5LKsGhfDYc0cxKGSGJv/jsI0NJcfoM"],
    ["a count below 7", "$S$5AAAAAAAAqvvzljJBexMmUxxNldM5lLXrxncWNcbqnuAJWnSm0XP".replace("$S$5", "$S$4")],
    ["a count character outside the alphabet", "$S$!abcdefghiZCkJFhCv7GrC5LKsGhfDYc0cxKGSGJv/jsI0NJcfoM"],
    ["a short salt", "$S$Dabc"],
    ["a truncated hash", "$S$DabcdefghiZCkJFhCv7GrC5LKsGhfDYc0cxKGSGJv/jsI0NJcfo"],
    ["a non-ASCII setting", "$S$Dabcdéfghi"],
    ["a bcrypt hash", "$2y$10$abcdefghijklmnopqrstuuDCvXs8KaZtYkPeqPpmEn7C8aYpeQkgO"],
  ])("resolves false for %s", async (_name, hash) => {
    await expect(hasher.verify(hash, "password1234")).resolves.toBe(false);
  });

  it("refuses a hostile count_log2 above maxCountLog2 without hashing", async () => {
    // At the limit the stretch runs: one digest of salt and password, then 2^count rounds.
    const atLimit = drupal7Hasher({ countLog2: 7, maxCountLog2: 7 });
    digests.clear();
    await expect(atLimit.verify("$S$5abcdefghiZCkJFhCv7GrC5LKsGhfDYc0cxKGSGJv/jsI0NJcfoM", "x")).resolves.toBe(false);
    expect(digests.get("sha512")).toBe(1 + 2 ** 7);
    // One step above it ('6' is count 8), and at Drupal's own maximum ('S' is 30: 2^30
    // rounds, over half an hour), not a single SHA-512 digest is computed.
    digests.clear();
    await expect(atLimit.verify("$S$6abcdefghiZCkJFhCv7GrC5LKsGhfDYc0cxKGSGJv/jsI0NJcfoM", "x")).resolves.toBe(false);
    await expect(hasher.verify("$S$SabcdefghiZCkJFhCv7GrC5LKsGhfDYc0cxKGSGJv/jsI0NJcfoM", "x")).resolves.toBe(false);
    await expect(hasher.verify("U$S$SabcdefghiZCkJFhCv7GrC5LKsGhfDYc0cxKGSGJv/jsI0NJcfoM", "x")).resolves.toBe(false);
    await expect(hasher.verify("$P$SabcdefghiZCkJFhCv7GrC5", "x")).resolves.toBe(false);
    expect(digests.get("sha512")).toBeUndefined();
    // The U$ form costs the one MD5 of the password that Drupal makes before reading the setting; $P$ none.
    expect(digests.get("md5")).toBe(1);
  });

  it("honours a lower maxCountLog2", async () => {
    const strict = drupal7Hasher({ countLog2: 10, maxCountLog2: 14 });
    await expect(strict.verify("$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI", "password1234")).resolves.toBe(false);
  });

  it.each([{ countLog2: 6 }, { countLog2: 31 }, { maxCountLog2: 31 }, { countLog2: 21 }, { countLog2: 15.5 }, { rounds: 3 }])(
    "throws a TypeError for options %j",
    (options) => {
      expect(() => drupal7Hasher(options as never)).toThrow(TypeError);
    },
  );
});

describe("drupal7Hasher: hash and needsRehash", () => {
  it("writes $S$D hashes of 55 characters that it and Drupal's rules accept", async () => {
    const hasher = drupal7Hasher();
    const hash = await hasher.hash("nöt a secret");
    expect(hash).toMatch(/^\$S\$D[./0-9A-Za-z]{51}$/);
    expect(hasher.needsRehash(hash)).toBe(false);
    await expect(hasher.verify(hash, "nöt a secret")).resolves.toBe(true);
    expect(await hasher.hash("nöt a secret")).not.toBe(hash);
  });

  it("mirrors user_needs_new_hash()", () => {
    const hasher = drupal7Hasher();
    expect(hasher.needsRehash("$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI")).toBe(false);
    expect(hasher.needsRehash("$P$DxTIL/YfZCdJtFYNh1Ef9ERbMBkuQ91")).toBe(true);
    expect(hasher.needsRehash("U$S$9abcdefghaWREx4nSgjMWvJjDfjbr/hWyd5GnT.Y27ylRbujarsi")).toBe(true);
    expect(hasher.needsRehash("$S$9abcdefghaWREx4nSgjMWvJjDfjbr/hWyd5GnT.Y27ylRbujarsi")).toBe(true);
    expect(hasher.needsRehash("$S$DeIZ1KTE.VzRvudZ5")).toBe(true);
    expect(drupal7Hasher({ countLog2: 16 }).needsRehash("$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI")).toBe(true);
  });

  it("recognises Drupal formats only", () => {
    const hasher = drupal7Hasher();
    for (const hash of ["$S$D…", "$P$D…", "$H$7…", "U$S$9…"]) expect(hasher.recognizes(hash)).toBe(true);
    for (const hash of ["$scrypt$ln=17,r=8,p=1$a$b", "$2y$10$…", "", "S$D"]) expect(hasher.recognizes(hash)).toBe(false);
  });

  it("lets the event loop run while it stretches", async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 0);
    await drupal7Hasher().verify("$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI", "password1234");
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });
});

describe("upgradingHasher", () => {
  const current = scryptHasher({ logN: 10 });
  const hasher = upgradingHasher({ current, legacy: [drupal7Hasher()] });

  it("verifies legacy Drupal hashes and asks for a rehash", async () => {
    await expect(hasher.verify("$P$DxTIL/YfZCdJtFYNh1Ef9ERbMBkuQ91", "derpalicious")).resolves.toBe(true);
    await expect(hasher.verify("$P$DxTIL/YfZCdJtFYNh1Ef9ERbMBkuQ91", "wrong")).resolves.toBe(false);
    expect(hasher.needsRehash("$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI")).toBe(true);
    expect(hasher.needsRehash("U$S$9abcdefghaWREx4nSgjMWvJjDfjbr/hWyd5GnT.Y27ylRbujarsi")).toBe(true);
  });

  it("hashes with the current hasher, and leaves current hashes alone", async () => {
    const hash = await hasher.hash("s3cret");
    expect(hash.startsWith("$scrypt$ln=10,")).toBe(true);
    expect(hasher.needsRehash(hash)).toBe(false);
    await expect(hasher.verify(hash, "s3cret")).resolves.toBe(true);
    await expect(hasher.verify(hash, "S3cret")).resolves.toBe(false);
  });

  it("asks for a rehash of a current-format hash with old parameters", async () => {
    const old = await scryptHasher({ logN: 11 }).hash("s3cret");
    expect(hasher.needsRehash(old)).toBe(true);
    await expect(hasher.verify(old, "s3cret")).resolves.toBe(true);
  });

  it("resolves false, never rejects, when a hasher throws", async () => {
    const broken: PasswordHasher = {
      hash: () => Promise.reject(new Error("down")),
      verify: () => Promise.reject(new Error("down")),
      needsRehash: () => false,
    };
    const wrapped = upgradingHasher({ current: broken, legacy: [drupal7Hasher()] });
    await expect(wrapped.verify("$scrypt$…", "x")).resolves.toBe(false);
  });

  it.each([
    ["no legacy hasher", { current, legacy: [] }],
    ["a legacy hasher without recognizes", { current, legacy: [current] }],
    ["no current hasher", { legacy: [drupal7Hasher()] }],
  ])("throws a TypeError for %s", (_name, options) => {
    expect(() => upgradingHasher(options as never)).toThrow(TypeError);
  });
});
