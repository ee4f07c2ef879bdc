import { describe, expect, it } from "vitest";
import { credentialsOf, redact } from "../../src/cli/redact.js";

describe("the command line's redact", () => {
  it("removes a URL's password, raw and decoded, and the URL itself, from a message", () => {
    const url = "mysql://drupal:p%40ss%2Fw0rd@db.internal:3306/drupal";
    const secrets = credentialsOf(url);
    expect(redact(`cannot connect to ${url}`, secrets)).toBe("cannot connect to ***");
    expect(redact("access denied for drupal with p@ss/w0rd or p%40ss%2Fw0rd", secrets)).toBe("access denied for drupal with *** or ***");
  });

  it("leaves a message alone when a URL has no password, and takes a string that is no URL as a whole", () => {
    expect(redact("ECONNREFUSED 127.0.0.1:6379", credentialsOf("redis://127.0.0.1:6379"))).toBe("ECONNREFUSED 127.0.0.1:6379");
    expect(credentialsOf("not a url")).toEqual(["not a url"]);
    expect(redact("a message", ["", "x".repeat(0)])).toBe("a message");
  });

  it("removes any URL's password and a password parameter, named as a secret or not", () => {
    expect(redact("Unexpected argument 'mysql://drupal:hunter2@db.internal/drupal'", [])).toBe("Unexpected argument 'mysql://drupal:***@db.internal/drupal'");
    expect(redact("bad postgres://u@db/x?sslmode=require&password=hunter2 here", [])).toBe("bad postgres://u@db/x?sslmode=require&password=*** here");
    expect(redact("no auth: failed for x", credentialsOf("postgres://u@db/x?password=s3cr%21t"))).toBe("no auth: failed for x");
    expect(redact("password s3cr!t refused", credentialsOf("postgres://u@db/x?password=s3cr%21t"))).toBe("password *** refused");
  });
});
