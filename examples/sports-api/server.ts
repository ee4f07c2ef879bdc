import { demoUserStore, trustProxySetting } from "./app.js";
import { exampleFramework, sportsApiServer } from "./frameworks.js";
import { httpsFromEnv, hybridOptionsFromEnv } from "./hybrid.js";
import { loginOptionsFromEnv } from "./login-env.js";
import { accountsFromEnv } from "./accounts-env.js";
import { storesFromEnv } from "./stores.js";
import { telemetryFromEnv } from "./telemetry.js";

const DEV_SECRET = "development-only-secret-change-me-0123456789";
const secret = process.env.SESSION_SECRET ?? DEV_SECRET;
if (secret === DEV_SECRET) {
  console.warn(
    "\n  !!! SESSION_SECRET is not set: using a public development secret.\n  !!! Set SESSION_SECRET (32+ random characters) before exposing this server.\n",
  );
}

// EXAMPLE_FRAMEWORK=express (the default), fastify or hono: the same routes, page and OpenAPI document.
const framework = exampleFramework(process.env.EXAMPLE_FRAMEWORK);
const stores = await storesFromEnv(process.env, secret);
// Hybrid and browser apps on other origins: TRUSTED_ORIGINS, SESSION_SAMESITE, COOKIE_SECURE (docs/hybrid-apps.md).
const hybrid = hybridOptionsFromEnv(process.env);
// DEVICE_COOKIES=true: device cookies against lockout abuse (docs/security.md).
const login = loginOptionsFromEnv(process.env);
// OTEL_EXPORTER_OTLP_ENDPOINT: the package's traces and metrics over OTLP (docs/telemetry.md).
const otel = telemetryFromEnv(process.env);
// HTTPS_CERT and HTTPS_KEY: serve HTTPS here, as a SameSite=None cookie needs.
const tls = httpsFromEnv(process.env);
const userStore = demoUserStore();
// The account calls (registration, forgot password, own account, admin calls): ACCOUNT_CALLS, SMTP_URL, SITE_NAME… (./accounts-env.ts).
const accounts = accountsFromEnv(process.env, (line) => console.log(line), stores.accounts);
// The demo passwords are hashed at start-up (scrypt, ~0.6 s each): serve once that is done.
await userStore.ready;
const port = Number(process.env.PORT ?? 3000);
// Behind a proxy that ends TLS, set TRUST_PROXY (e.g. "loopback"): cookies are then marked secure.
const server = await sportsApiServer(
  framework,
  {
    secret,
    userStore,
    extra: {
      ...stores.authOptions,
      ...hybrid,
      ...login,
      ...(accounts === undefined ? {} : { accounts }),
      ...(otel === undefined ? {} : { telemetry: otel.telemetry }),
    },
    trustProxy: trustProxySetting(process.env.TRUST_PROXY),
  },
  tls,
);
const scheme = tls === undefined ? "http" : "https";
if (login.deviceCookies === true) console.log("device cookies on (DEVICE_COOKIES): a client that logged in before keeps its own failure budget");
server.listen(port, () => {
  console.log(`sports API on ${scheme}://localhost:${port} (${framework}) with ${stores.kind} sessions  (log in as demo / demo-password)`);
  if (hybrid.trustedOrigins !== undefined) console.log(`app origins (logins and CORS): ${hybrid.trustedOrigins.join(", ")}`);
  if (otel !== undefined) console.log(`traces and metrics to ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT} (OTLP/HTTP)`);
});

// Out within a few seconds whatever the stores do: a store that hangs cannot hold the process.
const STOP_WITHIN_MS = 3000;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    setTimeout(() => process.exit(0), STOP_WITHIN_MS).unref();
    server.close();
    server.closeIdleConnections();
    void Promise.allSettled([stores.close(), otel?.shutdown()]).finally(() => process.exit(0));
  });
}
