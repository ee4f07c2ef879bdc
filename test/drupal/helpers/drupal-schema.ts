/**
 * Drupal 7's tables that the kit reads, as a 7.83+ site has them: `users` (with `changed`
 * after `created`, the order of a fresh install), `users_roles`, `role`, `sessions`,
 * `system` (for the schema version), `variable` and `flood`. Written from the column lists of
 * modules/user/user.install and modules/system/system.install; indexes the kit does not
 * need are left out. PostgreSQL gets the types Drupal's pgsql driver maps to (bytea for
 * blobs, CHECK constraints for unsigned).
 */

export function mysqlSchema(prefix: string): string[] {
  const t = (name: string) => `${prefix}${name}`;
  const table = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci";
  return [
    `CREATE TABLE ${t("users")} (
      uid INT UNSIGNED NOT NULL DEFAULT 0,
      name VARCHAR(60) NOT NULL DEFAULT '',
      pass VARCHAR(128) NOT NULL DEFAULT '',
      mail VARCHAR(254) NULL DEFAULT '',
      theme VARCHAR(255) NOT NULL DEFAULT '',
      signature VARCHAR(255) NOT NULL DEFAULT '',
      signature_format VARCHAR(255) NULL DEFAULT NULL,
      created INT NOT NULL DEFAULT 0,
      changed INT NOT NULL DEFAULT 0,
      access INT NOT NULL DEFAULT 0,
      login INT NOT NULL DEFAULT 0,
      status TINYINT NOT NULL DEFAULT 0,
      timezone VARCHAR(32) NULL DEFAULT NULL,
      language VARCHAR(12) NOT NULL DEFAULT '',
      picture INT NOT NULL DEFAULT 0,
      init VARCHAR(254) NULL DEFAULT '',
      data LONGBLOB NULL,
      PRIMARY KEY (uid),
      UNIQUE KEY name (name),
      KEY access (access),
      KEY mail (mail)
    ) ${table}`,
    `CREATE TABLE ${t("role")} (
      rid INT UNSIGNED NOT NULL AUTO_INCREMENT,
      name VARCHAR(64) NOT NULL DEFAULT '',
      weight INT NOT NULL DEFAULT 0,
      PRIMARY KEY (rid),
      UNIQUE KEY name (name)
    ) ${table}`,
    `CREATE TABLE ${t("users_roles")} (
      uid INT UNSIGNED NOT NULL DEFAULT 0,
      rid INT UNSIGNED NOT NULL DEFAULT 0,
      PRIMARY KEY (uid, rid),
      KEY rid (rid)
    ) ${table}`,
    `CREATE TABLE ${t("sessions")} (
      uid INT UNSIGNED NOT NULL,
      sid VARCHAR(128) NOT NULL,
      ssid VARCHAR(128) NOT NULL DEFAULT '',
      hostname VARCHAR(128) NOT NULL DEFAULT '',
      timestamp INT NOT NULL DEFAULT 0,
      cache INT NOT NULL DEFAULT 0,
      session LONGBLOB NULL,
      PRIMARY KEY (sid, ssid),
      KEY timestamp (timestamp),
      KEY uid (uid),
      KEY ssid (ssid)
    ) ${table}`,
    `CREATE TABLE ${t("flood")} (
      fid INT NOT NULL AUTO_INCREMENT,
      event VARCHAR(64) NOT NULL DEFAULT '',
      identifier VARCHAR(128) NOT NULL DEFAULT '',
      timestamp INT NOT NULL DEFAULT 0,
      expiration INT NOT NULL DEFAULT 0,
      PRIMARY KEY (fid),
      KEY \`allow\` (event, identifier, timestamp),
      KEY \`purge\` (expiration)
    ) ${table}`,
    `CREATE TABLE ${t("system")} (
      filename VARCHAR(255) NOT NULL DEFAULT '',
      name VARCHAR(255) NOT NULL DEFAULT '',
      type VARCHAR(12) NOT NULL DEFAULT '',
      status INT NOT NULL DEFAULT 0,
      schema_version SMALLINT NOT NULL DEFAULT -1,
      PRIMARY KEY (filename)
    ) ${table}`,
    `CREATE TABLE ${t("variable")} (
      name VARCHAR(128) NOT NULL DEFAULT '',
      value LONGBLOB NOT NULL,
      PRIMARY KEY (name)
    ) ${table}`,
  ];
}

/** An index's name: in the tables' own schema, never qualified (PostgreSQL puts an index beside its table). */
function index(prefix: string, name: string): string {
  return `${prefix.replace(/^.*\./, "")}${name}`;
}

export function postgresSchema(prefix: string): string[] {
  const t = (name: string) => `${prefix}${name}`;
  const unsigned = (column: string, type = "integer") => `${column} ${type} NOT NULL DEFAULT 0 CHECK (${column} >= 0)`;
  return [
    `CREATE TABLE ${t("users")} (
      ${unsigned("uid", "bigint")},
      name varchar(60) NOT NULL DEFAULT '',
      pass varchar(128) NOT NULL DEFAULT '',
      mail varchar(254) DEFAULT '',
      theme varchar(255) NOT NULL DEFAULT '',
      signature varchar(255) NOT NULL DEFAULT '',
      signature_format varchar(255) DEFAULT NULL,
      created integer NOT NULL DEFAULT 0,
      changed integer NOT NULL DEFAULT 0,
      access integer NOT NULL DEFAULT 0,
      login integer NOT NULL DEFAULT 0,
      status smallint NOT NULL DEFAULT 0,
      timezone varchar(32) DEFAULT NULL,
      language varchar(12) NOT NULL DEFAULT '',
      picture integer NOT NULL DEFAULT 0,
      init varchar(254) DEFAULT '',
      data bytea,
      PRIMARY KEY (uid),
      UNIQUE (name)
    )`,
    `CREATE TABLE ${t("role")} (
      rid serial CHECK (rid >= 0),
      name varchar(64) NOT NULL DEFAULT '',
      weight integer NOT NULL DEFAULT 0,
      PRIMARY KEY (rid),
      UNIQUE (name)
    )`,
    `CREATE TABLE ${t("users_roles")} (
      ${unsigned("uid", "bigint")},
      ${unsigned("rid", "bigint")},
      PRIMARY KEY (uid, rid)
    )`,
    `CREATE TABLE ${t("sessions")} (
      uid bigint NOT NULL CHECK (uid >= 0),
      sid varchar(128) NOT NULL,
      ssid varchar(128) NOT NULL DEFAULT '',
      hostname varchar(128) NOT NULL DEFAULT '',
      timestamp integer NOT NULL DEFAULT 0,
      cache integer NOT NULL DEFAULT 0,
      session bytea,
      PRIMARY KEY (sid, ssid)
    )`,
    `CREATE INDEX ${index(prefix, "sessions_ssid_idx")} ON ${t("sessions")} (ssid)`,
    `CREATE INDEX ${index(prefix, "sessions_timestamp_idx")} ON ${t("sessions")} (timestamp)`,
    `CREATE INDEX ${index(prefix, "sessions_uid_idx")} ON ${t("sessions")} (uid)`,
    `CREATE TABLE ${t("flood")} (
      fid serial,
      event varchar(64) NOT NULL DEFAULT '',
      identifier varchar(128) NOT NULL DEFAULT '',
      timestamp integer NOT NULL DEFAULT 0,
      expiration integer NOT NULL DEFAULT 0,
      PRIMARY KEY (fid)
    )`,
    `CREATE INDEX ${index(prefix, "flood_allow_idx")} ON ${t("flood")} (event, identifier, timestamp)`,
    `CREATE INDEX ${index(prefix, "flood_purge_idx")} ON ${t("flood")} (expiration)`,
    `CREATE TABLE ${t("system")} (
      filename varchar(255) NOT NULL DEFAULT '',
      name varchar(255) NOT NULL DEFAULT '',
      type varchar(12) NOT NULL DEFAULT '',
      status integer NOT NULL DEFAULT 0,
      schema_version smallint NOT NULL DEFAULT -1,
      PRIMARY KEY (filename)
    )`,
    `CREATE TABLE ${t("variable")} (
      name varchar(128) NOT NULL DEFAULT '',
      value bytea NOT NULL,
      PRIMARY KEY (name)
    )`,
  ];
}
