import { createHmac } from "node:crypto";
import { expect, it } from "vitest";
import { createTestApp, login } from "../helpers/app.js";

it("a logout computes a token only for values shaped as session ids, and for at most 32 of them", async () => {
  let macs = 0;
  const csrfToken = (sessid: string) => {
    macs += 1;
    return createHmac("sha256", "logout-macs-test").update(sessid).digest("base64url");
  };
  const { app, agent } = createTestApp({ csrfToken });
  const victim = await login(app);
  const name = victim.session_name;
  const logout = (values: string[]) =>
    agent
      .post("/services/json/user/logout")
      .set("Cookie", [...values.map((value) => `${name}=${value}`), `${name}=${victim.sessid}`].join("; "))
      .set("X-CSRF-Token", victim.token);

  // A hundred junk values cost no MAC, and do not hide the victim's session.
  macs = 0;
  const junk = Array.from({ length: 100 }, (_, i) => `junk${i}`);
  // Past the cap of well-formed values, nothing is computed and there is no session to end.
  const shaped = Array.from({ length: 40 }, (_, i) => `${"A".repeat(40)}${String(i).padStart(3, "0")}`);
  const refused = await logout([...junk, ...shaped]);
  expect(refused.status).toBe(406);
  expect(macs).toBe(0);
  const res = await logout(junk);
  expect([res.status, res.text]).toEqual([200, "[true]"]);
  expect(macs).toBeLessThanOrEqual(2);
});
