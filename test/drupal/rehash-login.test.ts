import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AuthEvent } from "services-session-auth";
import { drupal7Hasher } from "services-session-auth/drupal";
import { createTestApp, login } from "../helpers/app.js";

describe("login with drupal7Hasher alone", () => {
  it("logs in a U$ account with a password over 512 bytes and keeps its hash, as Drupal does", async () => {
    // A U$ hash is "U" + user_hash_password(md5(password)) (user_update_7000), so Drupal
    // verifies any length of password there; only hashing it anew is refused.
    const password = "p".repeat(600);
    const hasher = drupal7Hasher({ countLog2: 7 });
    const stored = `U${await hasher.hash(createHash("md5").update(password).digest("hex"))}`;
    const { app, userStore, events } = createTestApp({ hasher }, [{ uid: "30", name: "legacy", passwordHash: stored, mail: "l@example.com" }]);

    const { user } = await login(app, "legacy", password);
    expect(user.uid).toBe("30");
    expect((await userStore.findById("30"))?.passwordHash).toBe(stored);
    expect(events.filter((e): e is Extract<AuthEvent, { type: "rehash.failed" }> => e.type === "rehash.failed").map((e) => e.uid)).toEqual(["30"]);
  });
});
