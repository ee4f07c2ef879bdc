import type { Pool } from "pg";
import { memorySessionStore, scryptHasher, type SessionAuthOptions } from "services-session-auth";
import { upgradingHasher } from "services-session-auth/drupal";
import { teamHasher } from "./hasher.js";
import { appUserStore } from "./user-store.js";

/** The team's users and hashes, as they are: every login verifies the team's own format. */
export function teamOptions(pool: Pool, secret: string): SessionAuthOptions {
  return { userStore: appUserStore(pool), hasher: teamHasher(), sessionStore: memorySessionStore(), secret };
}

/** The same, moving each user to the package's scrypt (OWASP's cost) at their next login. */
export function upgradingOptions(pool: Pool, secret: string, current = scryptHasher()): SessionAuthOptions {
  const legacy = { ...teamHasher(), recognizes: (hash: string) => /^[0-9a-f]{32}:[0-9a-f]{128}$/.test(hash) };
  return { userStore: appUserStore(pool), hasher: upgradingHasher({ current, legacy: [legacy] }), sessionStore: memorySessionStore(), secret };
}
