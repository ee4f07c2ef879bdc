/**
 * The five client libraries' flows (docs/wire-format.md; the requests each one sends, as the
 * Drupal-era apps send them) through a proxy split between a real Drupal 7 site and the app:
 * each flow is run once moving forward (logged in while the proxy sent the Services paths to
 * Drupal, continued after they moved to Node) and once rolling back (logged in on Node,
 * continued after the paths went back to Drupal), with a Drupal page checked along the way.
 */
import { beforeAll, beforeEach, expect, it } from "vitest";
import { Client, nodeAndProxy, showsLoggedIn, type Answer, type Proxy } from "../helpers/beside-drupal.js";
import { describeBesideDrupal } from "../helpers/drupal7-site.js";

/** What a library keeps between calls. */
interface Held {
  cookie?: string;
  token?: string;
}

/** One library's calls: each takes the client and what the library holds, and answers the uid it saw (connect) or nothing. */
interface Flow {
  readonly name: string;
  /** Whether the library keeps cookies in a jar (a browser, a WebView) or builds `Cookie` from the login reply. */
  readonly jar: boolean;
  login(client: Client, held: Held): Promise<void>;
  connect(client: Client, held: Held): Promise<Answer>;
  logout(client: Client, held: Held): Promise<Answer>;
}

const credentials = { username: "demo", password: "demo-password" };

/** jDrupal (and DrupalGap, which is jDrupal with ?q= URLs): `.json` suffixes, a token fetched and trimmed, `""` bodies. */
function jdrupal(name: string): Flow {
  const token = async (client: Client, held: Held) => void (held.token = (await client.get("/?q=services/session/token")).text.trim());
  const post = (client: Client, path: string, held: Held) => client.postJson(`/?q=services/json/${path}.json`, "", { "X-CSRF-Token": held.token! });
  return {
    name,
    jar: true,
    async login(client, held) {
      await token(client, held);
      const answer = await client.postForm("/?q=services/json/user/login.json", credentials, { "X-CSRF-Token": held.token! });
      expect(answer.status).toBe(200);
      // It throws the token away and asks again with the new cookie.
      await token(client, held);
    },
    connect: (client, held) => post(client, "system/connect", held),
    logout: (client, held) => post(client, "user/logout", held),
  };
}

/** ng-drupal-7-services: JSON bodies, no suffix, the cookie written from the login reply, the token in two headers. */
const ng: Flow = {
  name: "ng-drupal-7-services",
  jar: false,
  async login(client, held) {
    const answer = await client.postJson("/services/json/user/login", credentials, { Accept: "application/json, text/plain, */*" });
    const reply = answer.json<{ sessid: string; session_name: string; token: string }>();
    held.cookie = `${reply.session_name}=${reply.sessid}`;
    held.token = reply.token;
    // user/token, as it refreshes the token.
    const refreshed = await client.request("POST", "/services/json/user/token", {
      cookie: held.cookie,
      headers: { "X-CSRF-TOKEN": held.token, Authorization: held.token },
    });
    expect(refreshed.json<{ token: string }>().token).toBe(reply.token);
  },
  connect: (client, held) =>
    client.request("POST", "/services/json/system/connect", {
      cookie: held.cookie!,
      headers: { "Content-Type": "application/json", Accept: "application/json, text/plain, */*", "X-CSRF-TOKEN": held.token!, Authorization: held.token! },
    }),
  logout: (client, held) =>
    client.request("POST", "/services/json/user/logout", {
      cookie: held.cookie!,
      headers: { "Content-Type": "application/json", "X-CSRF-TOKEN": held.token!, Authorization: held.token! },
    }),
};

/** moodle-drupalservices: form login with Accept JSON, `Cookie` built from the reply, the token fetched and used verbatim, empty bodies. */
const moodle: Flow = {
  name: "moodle-drupalservices",
  jar: false,
  async login(client, held) {
    const reply = (await client.postForm("/services/json/user/login", credentials, { Accept: "application/json" })).json<{
      sessid: string;
      session_name: string;
    }>();
    held.cookie = `${reply.session_name}=${reply.sessid}`;
    held.token = (await client.request("GET", "/services/session/token", { cookie: held.cookie })).text;
  },
  connect: (client, held) =>
    client.request("POST", "/services/json/system/connect", { cookie: held.cookie!, headers: { Accept: "application/json", "X-CSRF-Token": held.token! } }),
  logout: (client, held) =>
    client.request("POST", "/services/json/user/logout", { cookie: held.cookie!, headers: { Accept: "application/json", "X-CSRF-Token": held.token! } }),
};

/** drupal-ios-sdk: keeps session_name, sessid and token from the login reply for good and replays them. */
const ios: Flow = {
  name: "drupal-ios-sdk",
  jar: false,
  async login(client, held) {
    const reply = (await client.postJson("/services/json/user/login.json", credentials)).json<{ sessid: string; session_name: string; token: string }>();
    held.cookie = `${reply.session_name}=${reply.sessid}`;
    held.token = reply.token;
  },
  connect: (client, held) => client.request("POST", "/services/json/system/connect.json", { cookie: held.cookie!, headers: { "X-CSRF-Token": held.token! } }),
  logout: (client, held) => client.request("POST", "/services/json/user/logout.json", { cookie: held.cookie!, headers: { "X-CSRF-Token": held.token! } }),
};

const FLOWS: readonly Flow[] = [jdrupal("jDrupal"), jdrupal("DrupalGap"), ng, moodle, ios];

describeBesideDrupal(
  "the client libraries through a split proxy",
  4,
  (site) => {
    let proxy: Proxy;

    const both = nodeAndProxy(site);
    beforeAll(() => void ({ proxy } = both));
    beforeEach(async () => {
      await site().sql("DELETE FROM sessions");
      await site().sql("DELETE FROM flood");
    });

    /** A Drupal page, with the client's jar or with the cookie the library holds. */
    const drupalPage = (client: Client, held: Held) => client.request("GET", "/user", held.cookie === undefined ? {} : { cookie: held.cookie });

    for (const flow of FLOWS) {
      for (const [direction, first, then] of [
        ["moving to Node", "drupal", "split"],
        ["rolling back to Drupal", "split", "drupal"],
      ] as const) {
        it(`${flow.name}, ${direction}: log in on one system, go on and log out on the other`, async () => {
          const client = new Client(proxy.port, flow.jar);
          const held: Held = {};
          proxy.mode = first;
          await flow.login(client, held);
          const before = await flow.connect(client, held);
          expect(before.json<{ user: { uid: string } }>().user.uid).toBe("2");
          const cookie = held.cookie ?? client.jar.header();
          proxy.mode = then;
          const after = await flow.connect(client, held);
          expect(after.status).toBe(200);
          expect(after.json<{ user: { uid: string; name: string } }>().user).toMatchObject({ uid: "2", name: "demo" });
          expect(showsLoggedIn((await drupalPage(client, held)).text, "demo")).toBe(true);
          const out = await flow.logout(client, held);
          expect([out.status, out.text]).toEqual([200, "[true]"]);
          // The cookie the app held is nobody's on either system now.
          for (const mode of ["drupal", "split"] as const) {
            proxy.mode = mode;
            const connect = await client.request("POST", "/services/json/system/connect", { cookie: cookie!, headers: { "Content-Type": "application/json" } });
            expect(connect.json<{ user: { uid: number } }>().user.uid).toBe(0);
          }
          expect(showsLoggedIn((await client.request("GET", "/user", { cookie: cookie! })).text, "demo")).toBe(false);
        });
      }
    }
  },
  (variant) => !variant.rawSids,
);
