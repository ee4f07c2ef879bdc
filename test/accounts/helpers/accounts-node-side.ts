/**
 * The app beside a real Drupal site for the account calls: as docs/running-beside-drupal-7.md
 * sets one up (Drupal's users, sessions, tokens and hashes), with every account call on, Drupal's
 * variables read from its database, its hash salt and address, and Services' 404s for the rest.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { type AccountsOptions, type AuthEvent, type MailMessage } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import {
  drupal7AccountSettings,
  drupal7CsrfToken,
  drupal7Flood,
  drupal7Hasher,
  drupal7SessionStore,
  drupal7UserStore,
  readDrupal7PrivateKey,
} from "services-session-auth/drupal";
import type { DrupalSite } from "../../drupal/helpers/drupal7-site.js";

/** The app, the mail it sent, and its events. */
export interface AccountsNodeSide {
  readonly port: number;
  readonly sent: MailMessage[];
  readonly events: AuthEvent[];
  close(): Promise<void>;
}

/** Starts the app beside `site`; `accounts` overrides its account options. */
export async function startAccountsNodeSide(site: DrupalSite, accounts: Partial<AccountsOptions> = {}): Promise<AccountsNodeSide> {
  const { pool } = site;
  const sessionStore = drupal7SessionStore({ pool, scheme: "http", hashedSids: site.rawSids ? false : "auto" });
  await sessionStore.ready;
  const sent: MailMessage[] = [];
  const events: AuthEvent[] = [];
  const auth = createSessionAuthRouter({
    userStore: drupal7UserStore({ pool, parallelRun: true }),
    sessionStore,
    hasher: drupal7Hasher(),
    csrfToken: drupal7CsrfToken({ privateKey: await readDrupal7PrivateKey({ pool }), hashSalt: site.hashSalt }),
    secret: "side-by-side-accounts-secret-9f8e7d6c5b4a",
    onEvent: (event) => events.push(event),
    accounts: {
      calls: "all",
      mailer: { send: async (message) => void sent.push(message) },
      settings: drupal7AccountSettings({ pool }),
      hashSalt: site.hashSalt,
      siteUrl: site.baseUrl,
      flood: drupal7Flood({ pool }),
      ...accounts,
    },
  });
  const app = express();
  app.set("trust proxy", "loopback");
  app.use(auth);
  app.use("/services/json", auth.notFound());
  app.use(auth.notFound());
  app.use(auth.errorHandler());
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sent,
    events,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
