import { createApp } from "./app.js";

const DEV_SECRET = "development-only-secret-change-me-0123456789";
const secret = process.env.SESSION_SECRET ?? DEV_SECRET;
if (secret === DEV_SECRET) {
  console.warn("\n  !!! SESSION_SECRET is not set: using a public development secret.\n  !!! Set SESSION_SECRET (32+ random characters) before exposing this server.\n");
}

const port = Number(process.env.PORT ?? 3000);
const app = createApp({ secret });
app.listen(port, () => {
  console.log(`sports API on http://localhost:${port}  (log in as demo / demo-password)`);
});
