import { describe, expect, it } from "vitest";
import { encodeJson } from "../../src/wire/json.js";
import { reasonPhrase } from "../../src/wire/status.js";

describe("encodeJson", () => {
  it("writes JSON as PHP's json_encode does in Services: \\u escapes in lower case, bare slashes, no newline", () => {
    expect(encodeJson({ a: "é/ü", b: [true], c: "😀" })).toBe('{"a":"\\u00e9/\\u00fc","b":[true],"c":"\\ud83d\\ude00"}');
    expect(encodeJson([true])).toBe("[true]");
  });
});

describe("reasonPhrase", () => {
  it("builds '<code text> : <message>' with tags stripped and entities kept", () => {
    expect(reasonPhrase(401, "Wrong username or password.")).toBe("Unauthorized : Wrong username or password.");
    expect(reasonPhrase(403, 'The username <em class="placeholder">a&amp;b</em> is blocked.')).toBe(": The username a&amp;b is blocked.");
    expect(reasonPhrase(404, "Could not find the controller.")).toBe("Not found : Could not find the controller.");
  });

  it("never lets a control or non-Latin-1 character reach the status line", () => {
    expect(reasonPhrase(406, "Already logged in as a\r\nSet-Cookie: x\u0000\u20ac.")).toBe("Not Acceptable : Already logged in as aSet-Cookie: x??.");
  });
});
