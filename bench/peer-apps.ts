/**
 * What the benchmark's servers share: the one small body every configuration serves at
 * `GET /data`, the peers' cheap login check, and express-session's app over any store (its
 * MemoryStore, connect-redis, connect-pg-simple).
 */
import express, { type Express, type RequestHandler } from "express";
import session from "express-session";
import { BENCH_NAME, BENCH_PASSWORD, SECRET } from "./shared.js";

/** The small JSON body every configuration serves at `GET /data`. */
export const payload = {
  players: [
    { id: 1, name: "Ada" },
    { id: 2, name: "Grace" },
    { id: 3, name: "Edsger" },
  ],
};
/** `GET /data`'s answer, the same for every configuration. */
export const sendData: RequestHandler = (_req, res) => void res.json(payload);

/** The peers' cheap login check, the same for every peer. */
export function credentialsOk(body: unknown): boolean {
  const { username, password } = (body ?? {}) as { username?: unknown; password?: unknown };
  return username === BENCH_NAME && password === BENCH_PASSWORD;
}

declare module "express-session" {
  interface SessionData {
    uid: string;
  }
}

/** express-session over `store` (its MemoryStore when undefined): `POST /login` as its docs show it, `GET /data` for a session only. */
export function expressSessionApp(store: session.Store | undefined): Express {
  const app = express();
  app.use(session({ secret: SECRET, resave: false, saveUninitialized: false, ...(store === undefined ? {} : { store }) }));
  app.post("/login", express.json(), (req, res, next) => {
    if (!credentialsOk(req.body)) return void res.status(401).json({ error: "wrong credentials" });
    // express-session's documented login: a new id, then the user on it.
    req.session.regenerate((error) => {
      if (error) return next(error);
      req.session.uid = "1";
      res.json({ ok: true });
    });
  });
  app.get("/data", (req, res, next) => (req.session.uid === undefined ? void res.status(401).json({ error: "no session" }) : next()), sendData);
  return app;
}
