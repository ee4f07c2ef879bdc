import express, { type Express } from "express";
import { createSessionAuthRouter, memoryCounterStore, memorySessionStore, memoryUserStore } from "services-session-auth";
import { fastHasher, SECRET } from "../../helpers/app.js";

/** What the standard install profile's rdf module adds to every user object (`user_rdf_mapping`). */
const RDF_MAPPING = { rdftype: ["sioc:UserAccount"], name: { predicates: ["foaf:name"] }, homepage: { predicates: ["foaf:page"], type: "rel" } };

/**
 * An app configured like the recorded site (the transcript README's "What answered"): the
 * endpoint `services/json` named "oracle", the JSON and form-urlencoded parsers only, the
 * accounts admin (uid 1, administrator, timezone UTC), demo and blocked (status 0), with
 * the rdf module's mapping as a Drupal user store would supply it. `?q=` routing, the
 * session token call and Services' own 404s are mounted as the example app mounts them.
 */
export async function recordedSite(): Promise<{ app: Express; close: () => void }> {
  const userStore = memoryUserStore(
    [
      { uid: "1", name: "admin", password: "admin-password", mail: "admin@example.com", roles: ["administrator"], fields: { timezone: "UTC", rdf_mapping: RDF_MAPPING } },
      { uid: "2", name: "demo", password: "demo-password", mail: "demo@example.com", fields: { rdf_mapping: RDF_MAPPING } },
      { uid: "3", name: "blocked", password: "blocked-password", mail: "blocked@example.com", active: false, fields: { rdf_mapping: RDF_MAPPING } },
    ],
    { hasher: fastHasher },
  );
  await userStore.ready;
  const sessionStore = memorySessionStore();
  const auth = createSessionAuthRouter({
    userStore,
    sessionStore,
    counterStore: memoryCounterStore(),
    secret: SECRET,
    hasher: fastHasher,
    endpointName: "oracle",
    parsers: ["application/json", "application/x-www-form-urlencoded"],
  });
  const app = express();
  app.disable("x-powered-by");
  app.use(auth);
  app.use("/services/json", auth.notFound());
  app.use(auth.errorHandler());
  return { app, close: () => sessionStore.close() };
}
