-- The team's table, as it already is. Only the unique index on lower(username) is asked for:
-- logins match names case-insensitively, and one lower-case spelling names one account.
CREATE TABLE app_users (
  id serial PRIMARY KEY,
  username text NOT NULL,
  email text NOT NULL,
  password_hash text NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  is_admin boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz
);
CREATE UNIQUE INDEX app_users_username ON app_users (lower(username));
