/**
 * drupal7SessionStore passes the contract every store passes, on real MariaDB and PostgreSQL
 * databases with Drupal 7's schema: once where `sessions.sid` is hashed (core 7.98+), once
 * where it is the raw id (`do_not_hash_session_ids`); on PostgreSQL the tables are in a schema
 * of their own, named by the table prefix.
 */
import { drupal7SessionStore } from "services-session-auth/drupal";
import { describeEachDrupalDb } from "../helpers/drupal-db.js";
import { describeSessionStore } from "../../stores/contract.js";

describeEachDrupalDb("drupal7SessionStore", (db) => {
  for (const hashedSids of [true, false]) {
    describeSessionStore(`drupal7SessionStore (${hashedSids ? "hashed" : "raw"} sids)`, () =>
      drupal7SessionStore({ pool: db().pool, prefix: db().prefix, scheme: "https", hashedSids }),
    );
  }
  describeSessionStore("drupal7SessionStore (accounts from elsewhere, plain HTTP)", () =>
    drupal7SessionStore({ pool: db().pool, prefix: db().prefix, scheme: "http", hashedSids: true, joinUsers: false }),
  );
});
