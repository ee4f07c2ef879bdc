import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from "express";
import { describe, expectTypeOf, it } from "vitest";
import {
  memoryCounterStore,
  memorySessionStore,
  memoryUserStore,
  openApiDocument,
  type AuthEvent,
  type AuthUser,
  type CounterStore,
  type MemorySessionStore,
  type OpenApiObject,
  type PasswordHasher,
  type RequestAuth,
  type LoginReply,
  type RequireSessionOptions,
  type SessionAuthError,
  type SessionAuthErrorCode,
  type SessionAuthOptions,
  sessionCookieFor,
  type SessionRecord,
  type SessionStore,
  type SessionStoreContext,
  type StoredSession,
  type UserRecord,
  type UserStore,
} from "services-session-auth";
import { createSessionAuthRouter, type SessionAuthRouter } from "services-session-auth/express";
import { redisSessionStore, type RedisClientLike } from "services-session-auth/redis";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from "fastify";
import { createSessionAuthPlugin, type SessionAuthPlugin } from "services-session-auth/fastify";
import { createSessionAuthHandler, type FetchGuard, type FetchGuardResult } from "services-session-auth/fetch";
import { Hono } from "hono";
import { createSessionAuthMiddleware } from "services-session-auth/hono";

describe("req.auth", () => {
  it("is optional on every request and typed where requireSession put it", () => {
    expectTypeOf<Express.Request["auth"]>().toEqualTypeOf<RequestAuth | undefined>();
    expectTypeOf<RequestAuth["user"]>().toEqualTypeOf<AuthUser>();
    expectTypeOf<RequestAuth["session"]>().toEqualTypeOf<StoredSession>();
  });

  it("never carries the password hash", () => {
    expectTypeOf<AuthUser>().not.toHaveProperty("passwordHash");
    expectTypeOf<AuthUser>().toHaveProperty("uid").toEqualTypeOf<string>();
    expectTypeOf<AuthUser["roles"]>().toEqualTypeOf<Readonly<Record<string, string>>>();
  });
});

describe("store interfaces", () => {
  it("are promise-only, over plain records", () => {
    // The request's context is optional: a store of the id alone ignores it.
    expectTypeOf<SessionStore["create"]>().toEqualTypeOf<(record: SessionRecord, context?: SessionStoreContext) => Promise<string>>();
    expectTypeOf<SessionStore["get"]>().returns.toEqualTypeOf<Promise<StoredSession | null>>();
    expectTypeOf<SessionStore["destroyByUser"]>().returns.toEqualTypeOf<Promise<number>>();
    expectTypeOf<SessionStore["adopt"]>().toEqualTypeOf<((handle: string, record: SessionRecord) => Promise<void>) | undefined>();
    expectTypeOf<UserStore["findByName"]>().returns.toEqualTypeOf<Promise<UserRecord | null>>();
    expectTypeOf<UserStore["updatePasswordHash"]>().returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf<CounterStore["increment"]>().toEqualTypeOf<(key: string, ttlSeconds: number) => Promise<number>>();
    expectTypeOf<CounterStore["decrement"]>().toEqualTypeOf<(key: string) => Promise<void>>();
    expectTypeOf<PasswordHasher["needsRehash"]>().returns.toEqualTypeOf<boolean>();
  });

  it("are what the package's stores are", () => {
    expectTypeOf(memorySessionStore()).toEqualTypeOf<MemorySessionStore>();
    expectTypeOf(memorySessionStore()).toExtend<SessionStore>();
    expectTypeOf(memoryUserStore([])).toExtend<UserStore>();
    expectTypeOf(memoryCounterStore()).toEqualTypeOf<CounterStore>();
    expectTypeOf(redisSessionStore).parameter(0).toHaveProperty("client").toEqualTypeOf<RedisClientLike>();
    expectTypeOf(redisSessionStore).returns.toEqualTypeOf<SessionStore>();
    expectTypeOf(sealedCookieStore).returns.toEqualTypeOf<SessionStore>();
  });

  it("keep records read-only", () => {
    const record = {} as SessionRecord;
    // @ts-expect-error: records are immutable; a store hands out what it keeps.
    record.uid = "2";
    expectTypeOf(record).toHaveProperty("expiresAt").toEqualTypeOf<number>();
  });
});

describe("option types", () => {
  it("take one options object in createSessionAuthRouter, and hand out pieces Express takes, typed without Express's types", () => {
    expectTypeOf(createSessionAuthRouter).parameter(0).toEqualTypeOf<SessionAuthOptions>();
    expectTypeOf(createSessionAuthRouter).returns.toEqualTypeOf<SessionAuthRouter>();
    // Mounted as it is, and each piece where Express takes a handler.
    expectTypeOf<SessionAuthRouter>().toExtend<RequestHandler>();
    expectTypeOf<ReturnType<SessionAuthRouter["requireSession"]>>().toExtend<RequestHandler>();
    expectTypeOf<ReturnType<SessionAuthRouter["optionalSession"]>>().toExtend<RequestHandler>();
    expectTypeOf<ReturnType<SessionAuthRouter["errorHandler"]>>().toExtend<ErrorRequestHandler>();
    expectTypeOf<SessionAuthRouter["requireSession"]>().parameter(0).toEqualTypeOf<RequireSessionOptions | undefined>();
    expectTypeOf<(req: Request, res: Response, user: UserRecord) => Promise<LoginReply>>().toExtend<SessionAuthRouter["startSession"]>();
    expectTypeOf<SessionAuthRouter["listSessions"]>().returns.toEqualTypeOf<Promise<StoredSession[]>>();
    const auth = createSessionAuthRouter({ userStore: memoryUserStore([]), sessionStore: memorySessionStore(), secret: "x".repeat(32) });
    const app = express();
    app.use(auth);
    app.get("/me", auth.requireSession(), (req, res) => {
      expectTypeOf(req.auth).toEqualTypeOf<RequestAuth | undefined>();
      void auth.startSession(req, res, {} as UserRecord);
    });
    app.use(auth.notFound());
    app.use(auth.errorHandler());
  });

  it("keep a guard's options to the guard's own", () => {
    expectTypeOf<RequireSessionOptions>().toEqualTypeOf<{ csrf?: boolean; roles?: readonly string[]; onDenied?: "reply" | "next" }>();
  });

  it("require the stores, and only the stores", () => {
    expectTypeOf<{ userStore: UserStore; sessionStore: SessionStore; secret: string }>().toExtend<SessionAuthOptions>();
    expectTypeOf<{ userStore: UserStore }>().not.toExtend<SessionAuthOptions>();
    expectTypeOf<SessionAuthOptions["throttle"]>().toEqualTypeOf<
      { ipLimit?: number; ipWindow?: number; userLimit?: number; userWindow?: number; perAccountOnly?: boolean } | false | undefined
    >();
    expectTypeOf<SessionAuthOptions["blockedAccountResponse"]>().toEqualTypeOf<"drupal" | "generic" | undefined>();
    expectTypeOf<SessionAuthOptions["loginApiVersion"]>().toEqualTypeOf<"1.0" | "1.1" | undefined>();
    expectTypeOf<RequireSessionOptions["roles"]>().toEqualTypeOf<readonly string[] | undefined>();
    expectTypeOf<SessionAuthOptions["sameSite"]>().toEqualTypeOf<"lax" | "strict" | "none" | undefined>();
    expectTypeOf<SessionAuthOptions["cookieSecure"]>().toEqualTypeOf<"auto" | "always" | undefined>();
    expectTypeOf<SessionAuthOptions["parsers"]>().toEqualTypeOf<
      readonly ("application/json" | "application/x-www-form-urlencoded" | "multipart/form-data")[] | undefined
    >();
  });

  it("let sessionCookieFor take createSessionAuthRouter's options object", () => {
    expectTypeOf<SessionAuthOptions>().toExtend<Parameters<typeof sessionCookieFor>[1]>();
    expectTypeOf(sessionCookieFor).returns.toHaveProperty("domain").toEqualTypeOf<string | undefined>();
  });

  it("type the audit events and error codes as closed unions", () => {
    expectTypeOf<AuthEvent["type"]>().toEqualTypeOf<
      | "login.success"
      | "login.failure"
      | "login.throttled"
      | "login.busy"
      | "login.cross-site"
      | "config.cross-site-cookie"
      | "config.routing"
      | "cookie.cross-site"
      | "logout"
      | "logout.everywhere"
      | "logout.unrecorded"
      | "session.expired"
      | "session.revoked"
      | "session.unserved"
      | "session.ambiguous"
      | "csrf.rejected"
      | "store.failure"
      | "store.full"
      | "rehash.failed"
      | "address.unknown"
      | "internal.error"
      | "account.created"
      | "account.updated"
      | "account.deleted"
      | "password.reset-requested"
      | "password.reset-used"
      | "mail.failed"
      | "config.accounts"
    >();
    expectTypeOf<Extract<AuthEvent, { type: "login.failure" }>>().toHaveProperty("reason");
    // A failed login names the account by uid or the name by a keyed hash, never the name itself.
    expectTypeOf<Extract<AuthEvent, { type: "login.failure" }>>().toHaveProperty("nameHash");
    expectTypeOf<Extract<AuthEvent, { type: "login.failure" }>>().not.toHaveProperty("name");
    expectTypeOf<"ERR_CSRF">().toExtend<SessionAuthErrorCode>();
    expectTypeOf<"ERR_NOPE">().not.toExtend<SessionAuthErrorCode>();
  });

  it("accept createSessionAuthRouter's options object in openApiDocument", () => {
    expectTypeOf(openApiDocument).parameter(0).toExtend<{ auth?: Partial<SessionAuthOptions> } | undefined>();
    expectTypeOf(openApiDocument).returns.toEqualTypeOf<OpenApiObject>();
  });
});

describe("the Fastify plugin's types", () => {
  it("types request.auth by declaration merging, and the plugin by the package's options, given once", () => {
    expectTypeOf<FastifyRequest["auth"]>().toEqualTypeOf<RequestAuth | undefined>();
    expectTypeOf(createSessionAuthPlugin).parameter(0).toEqualTypeOf<SessionAuthOptions>();
    expectTypeOf<SessionAuthPlugin["requireSession"]>().returns.toEqualTypeOf<preHandlerHookHandler>();
    expectTypeOf<SessionAuthPlugin>().toBeCallableWith({} as FastifyInstance, {});
    expectTypeOf<SessionAuthPlugin["startSession"]>().parameters.toEqualTypeOf<[FastifyRequest, FastifyReply, UserRecord]>();
  });
});

describe("the fetch handler's types", () => {
  it("resolves the session or a Response, narrowed by response, and Response | undefined from handle", () => {
    const handler = createSessionAuthHandler({ userStore: memoryUserStore([]), sessionStore: memorySessionStore(), secret: "x".repeat(32) });
    expectTypeOf(handler.handle).returns.resolves.toEqualTypeOf<globalThis.Response | undefined>();
    const guard: FetchGuard = handler.requireSession({ roles: ["administrator"] });
    expectTypeOf(guard).returns.resolves.toEqualTypeOf<FetchGuardResult>();
    const result = {} as FetchGuardResult;
    // Once there is no response, the session is there: no `!`.
    if (result.response === undefined) expectTypeOf(result.auth).toEqualTypeOf<RequestAuth>();
    else expectTypeOf(result.error).toEqualTypeOf<SessionAuthError | undefined>();
    // An optional guard's session may be absent.
    expectTypeOf(handler.optionalSession()).returns.resolves.toEqualTypeOf<FetchGuardResult<RequestAuth | undefined>>();
    // What a guard let through carries the headers withHeaders takes.
    expectTypeOf<Exclude<FetchGuardResult, { response: globalThis.Response }>["headers"]>().toExtend<Parameters<typeof handler.withHeaders>[1]>();
    // The same guard options as every binding's; the same start and end, the response's headers standing for the reply.
    expectTypeOf(handler.requireSession).parameter(0).toEqualTypeOf<RequireSessionOptions | undefined>();
    expectTypeOf(handler.endSession).returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(handler.startSession).returns.toEqualTypeOf<Promise<LoginReply>>();
  });
});

describe("the Hono middleware's types", () => {
  it("types c.var.auth: defined behind requireSession, optional behind optionalSession, absent elsewhere", () => {
    const sessionAuth = createSessionAuthMiddleware({ userStore: memoryUserStore([]), sessionStore: memorySessionStore(), secret: "x".repeat(32) });
    const app = new Hono({ getPath: sessionAuth.getPath });
    app.use(sessionAuth);
    app.get("/me", sessionAuth.requireSession(), (c) => {
      expectTypeOf(c.var.auth).toEqualTypeOf<RequestAuth>();
      return c.json({ name: c.var.auth.user.name });
    });
    app.get("/welcome", sessionAuth.optionalSession(), (c) => {
      expectTypeOf(c.var.auth).toEqualTypeOf<RequestAuth | undefined>();
      return c.text("hi");
    });
    app.get("/open", (c) => {
      // No global augmentation of Hono's ContextVariableMap: an app's own `auth` variable stays its own.
      // @ts-expect-error no guard ran, so no auth variable is typed here
      void c.var.auth;
      return c.text("hi");
    });
    app.notFound(sessionAuth.notFound());
    app.onError(sessionAuth.onError());
  });
});
