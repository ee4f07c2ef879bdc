import type { PasswordHasher, UserRecord, UserStore } from "../types.js";
import type { Emit } from "../events.js";
import type { Authenticator } from "../login/authenticator.js";
import type { SessionContext, Sessions } from "../sessions/sessions.js";
import { checkPlain } from "../wire/html.js";
import type { WireResponse } from "../wire/reply.js";
import type { Mailer } from "../mail/mailer.js";
import type { UserMailOperation } from "../mail/templates.js";
import { userMails, type MailSite } from "../mail/user-mail.js";
import type { FloodStore } from "./flood.js";
import { userPassRehash, type OneTimeLink } from "./one-time-link.js";
import type { PassResetTokens } from "./pass-reset-token.js";
import { Permissions } from "./permissions.js";
import { servicesError } from "./replies.js";
import type { AccountSettings } from "./settings.js";

/** What the account calls work with, made once by the engine. */
export interface AccountDeps {
  /** The user store, behind the store timeout. */
  readonly users: UserStore;
  readonly sessions: Sessions;
  readonly auth: Authenticator;
  readonly hasher: PasswordHasher;
  readonly flood: FloodStore;
  readonly mailer: Mailer | undefined;
  /** `isAdmin`: who holds every permission when the user store cannot tell permissions. */
  readonly isAdmin: (user: UserRecord) => boolean;
  /** The endpoint's path (`/services/json`), for a new account's `uri`. */
  readonly endpointPath: string;
  /** `accounts.siteUrl`, else `baseUrl`: Drupal's `$base_url`. */
  readonly siteUrl: string | undefined;
  readonly hashSalt: string;
  /** The `pass_reset_<uid>` tokens used one-time links give their sessions. */
  readonly passResetTokens: PassResetTokens;
  readonly oneTimeLoginUrl: ((link: OneTimeLink) => string) | undefined;
  readonly unknownAccount: "hide" | "reveal";
  readonly emit: Emit;
}

/** The request as the account calls read it. */
export interface AccountRequest {
  readonly host: string;
  readonly secure: boolean;
  readonly cookieHeader: string | undefined;
  readonly ip: string;
  readonly userAgent: string;
  readonly requestId?: string | undefined;
  /** The routed query string (`$_GET` without `q`). */
  readonly query: string;
}

/** A uid as Drupal's entity loader takes one (`filterId()`): digits only, so `05` is 5 and `5a` is none. */
export function loadableUid(uid: unknown): string | undefined {
  const text = typeof uid === "number" ? (Number.isSafeInteger(uid) && uid >= 0 ? String(uid) : undefined) : typeof uid === "string" ? uid : undefined;
  if (text === undefined || !/^\d{1,10}$/.test(text)) return undefined;
  return String(Number(text));
}

/**
 * One account call in progress: its request, session, caller and site settings, with what every
 * call needs (permissions, URLs, loading an account, Services' errors, mail).
 */
export class AccountCall {
  readonly deps: AccountDeps;
  readonly settings: AccountSettings;
  readonly request: AccountRequest;
  readonly context: SessionContext;
  /** The logged-in caller, if any. */
  readonly caller: UserRecord | undefined;
  readonly #permissions: Permissions;

  constructor(deps: AccountDeps, settings: AccountSettings, request: AccountRequest, context: SessionContext) {
    this.deps = deps;
    this.settings = settings;
    this.request = request;
    this.context = context;
    this.caller = context.state.kind === "live" ? context.state.user : undefined;
    this.#permissions = new Permissions(deps.users, this.caller, deps.isAdmin);
  }

  /** The caller's uid, `"0"` for a visitor. */
  get callerUid(): string {
    return this.caller?.uid ?? "0";
  }

  /** `user_access()` for the caller. */
  can(permission: string): Promise<boolean> {
    return this.#permissions.has(permission);
  }

  /** `$base_url`, without a trailing slash. */
  get siteUrl(): string {
    const { request } = this;
    let url = this.deps.siteUrl ?? `${request.secure ? "https" : "http"}://${request.host}`;
    while (url.endsWith("/")) url = url.slice(0, -1);
    return url;
  }

  /** `url($path, array('absolute' => TRUE))`: clean, or `?q=` when the site has no clean URLs. */
  url(path: string): string {
    if (path === "") return `${this.siteUrl}/`;
    return this.settings.cleanUrls ? `${this.siteUrl}/${path}` : `${this.siteUrl}/?q=${path}`;
  }

  /** `url($path)`: relative to the host, under the site's base path. */
  relativeUrl(path: string): string {
    const base = new URL(`${this.siteUrl}/`).pathname;
    return this.settings.cleanUrls ? `${base}${path}` : `${base}?q=${path}`;
  }

  /** `services_resource_uri(array('user', $uid))`: the account under the endpoint. */
  uri(uid: string): string {
    return this.url(`${this.deps.endpointPath.slice(1)}/user/${uid}`);
  }

  /** Services' 403 when an access callback says no: `Access denied for user <name>`. */
  accessDenied(): WireResponse {
    return servicesError(403, `Access denied for user ${this.caller === undefined ? "anonymous" : checkPlain(this.caller.name)}`);
  }

  /** The 404 of `user_load()` failing: `There is no user with ID <uid>.` */
  noSuchUser(uid: string): WireResponse {
    return servicesError(404, `There is no user with ID ${checkPlain(uid)}.`);
  }

  /** `user_load($uid)`, or null. */
  async load(uid: unknown): Promise<UserRecord | null> {
    const id = loadableUid(uid);
    return id === undefined || id === "0" ? null : this.deps.users.findById(id);
  }

  /** Opens a session for an account as a login does, the store told of the request (its scheme, a cookie the session replaces). */
  openSession(account: UserRecord): Promise<{ readonly sessid: string }> {
    const { request, context, deps } = this;
    const store = deps.sessions.loginContext(request, context);
    return deps.auth.open(account, { ip: request.ip, userAgent: request.userAgent, now: context.now, requestId: request.requestId, store });
  }

  /** The one-time login link of an account as it is now (`user_pass_reset_url()`), made at this request's time. */
  oneTimeLoginUrl(account: UserRecord): string {
    const timestamp = this.context.now;
    const hash = userPassRehash(account.passwordHash, timestamp, account.login, account.uid, account.mail, this.deps.hashSalt);
    const drupalUrl = this.url(`user/reset/${account.uid}/${timestamp}/${hash}`);
    const make = this.deps.oneTimeLoginUrl;
    return make === undefined ? drupalUrl : make({ uid: account.uid, timestamp, hash, siteUrl: this.siteUrl, drupalUrl });
  }

  /**
   * `_user_mail_notify($op, $account)`: sends the operation's mails, if the site sends it; resolves the
   * account's mail's result (`undefined` when none was sent), a failed send being `false` and an event.
   */
  async mail(op: UserMailOperation, account: UserRecord): Promise<boolean | undefined> {
    const { settings, deps } = this;
    const site: MailSite = {
      name: settings.siteName,
      slogan: settings.siteSlogan,
      mail: settings.siteMail,
      displayName: settings.mailDisplayName,
      templates: settings.mailTemplates,
      notify: settings.mailNotify,
    };
    const timestamp = this.context.now;
    const messages = userMails(op, site, {
      user: { uid: account.uid, name: account.name, mail: account.mail },
      site: { name: site.name, slogan: site.slogan, mail: site.mail },
      url: (path) => this.url(path),
      oneTimeLoginUrl: () => this.oneTimeLoginUrl(account),
      cancelUrl: () =>
        this.url(
          `user/${account.uid}/cancel/confirm/${timestamp}/${userPassRehash(account.passwordHash, timestamp, account.login, account.uid, account.mail, deps.hashSalt)}`,
        ),
    });
    let result: boolean | undefined;
    for (const [index, message] of messages.entries()) {
      let sent = false;
      try {
        if (deps.mailer === undefined) throw new Error("no mailer: set accounts.mailer");
        await deps.mailer.send(message);
        sent = true;
      } catch (err) {
        deps.emit({ type: "mail.failed", key: message.key, err }, this.request.requestId);
      }
      if (index === 0) result = sent;
    }
    return result;
  }
}
