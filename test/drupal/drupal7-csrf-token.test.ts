import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { drupal7CsrfToken } from "../../src/drupal/index.js";

describe("drupal7CsrfToken", () => {
  it("matches drupal_get_token() for a known session id, private key and hash salt", () => {
    const token = drupal7CsrfToken({ privateKey: "PRIVKEY", hashSalt: "SALT" });
    expect(token("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ")).toBe("NHKxPzvOr38kSDd3jkk1yScPNr8jXITuXEllAIGdzpc");
  });

  it("is 43 base64url characters and differs per session", () => {
    const token = drupal7CsrfToken({ privateKey: "k".repeat(43), hashSalt: "salt" });
    const a = token("A".repeat(43));
    const b = token("B".repeat(43));
    expect(a).toMatch(/^[\w-]{43}$/);
    expect(a).not.toBe(b);
  });

  it("agrees with PHP's base64 + strtr route", () => {
    // drupal_hmac_base64(): base64_encode, then strtr('+/', '-_') and strip '='.
    const php = createHmac("sha256", "sid" + "key" + "salt")
      .update("services")
      .digest("base64")
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/={1,2}$/, "");
    expect(drupal7CsrfToken({ privateKey: "key", hashSalt: "salt" })("sid")).toBe(php);
  });

  it.each([{}, { privateKey: "", hashSalt: "x" }, { privateKey: "x" }, { privateKey: "x", hashSalt: "y", extra: 1 }])(
    "throws a TypeError for %j",
    (options) => {
      expect(() => drupal7CsrfToken(options as never)).toThrow(TypeError);
    },
  );
});
