/**
 * The UserStore writes contract on memoryUserStore, and on drupal7UserStore over a real Drupal 7
 * site's database (MariaDB and PostgreSQL): Drupal's own `sequences`, `users_roles`,
 * `role_permission` and `role`, beside a Drupal that writes the same tables.
 */
import { memoryUserStore } from "services-session-auth";
import { drupal7UserStore } from "services-session-auth/drupal";
import { fastHasher, USERS } from "../helpers/app.js";
import { describeBesideDrupal } from "../drupal/helpers/drupal7-site.js";
import { describeUserStoreWrites } from "./user-store-contract.js";

const memory = memoryUserStore(USERS, { hasher: fastHasher });
describeUserStoreWrites("memoryUserStore", () => memory, { role: "3", existing: { uid: "14", name: "demo", mail: "demo@example.com" } });

describeBesideDrupal(
  "drupal7UserStore writes",
  44,
  (site) => {
    let store: ReturnType<typeof drupal7UserStore> | undefined;
    describeUserStoreWrites("drupal7UserStore", () => (store ??= drupal7UserStore({ pool: site().pool, parallelRun: false })), {
      role: "3",
      existing: { uid: "2", name: "demo", mail: "demo@example.com" },
    });
  },
  (variant) => !variant.rawSids,
  { accounts: true },
);
