import { demoUserStore, trustProxySetting } from "./app.js";
import { exampleFramework, sportsApiServer } from "./frameworks.js";
import { storesFromEnv } from "./stores.js";

const DEV_SECRET = "development-only-secret-change-me-0123456789";
const secret = process.env.SESSION_SECRET ?? DEV_SECRET;
if (secret === DEV_SECRET) {
  console.warn("\n  !!! SESSION_SECRET is not set: using a public development secret.\n  !!! Set SESSION_SECRET (32+ random characters) before exposing this server.\n");
}

// EXAMPLE_FRAMEWORK=express (the default), fastify or hono: the same routes, page and OpenAPI document.
const framework = exampleFramework(process.env.EXAMPLE_FRAMEWORK);
const stores = await storesFromEnv(process.env, secret);
const userStore = demoUserStore();
// The demo passwords are hashed at start-up (scrypt, ~0.6 s each): serve once that is done.
await userStore.ready;
const port = Number(process.env.PORT ?? 3000);
// Behind a proxy that ends TLS, set TRUST_PROXY (e.g. "loopback"): cookies are then marked secure.
const server = await sportsApiServer(framework, { secret, userStore, extra: stores.authOptions, trustProxy: trustProxySetting(process.env.TRUST_PROXY) });
server.listen(port, () => {
  console.log(`sports API on http://localhost:${port} (${framework}) with ${stores.kind} sessions  (log in as demo / demo-password)`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    void stores.close().finally(() => process.exit(0));
  });
}
