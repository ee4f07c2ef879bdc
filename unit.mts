import { withHeaders } from "/work/main/src/fetch/respond.ts";
import { createServer } from "node:http";
const srv = createServer((q, s) => s.end("up")).listen(0, "127.0.0.1"); await new Promise(r => srv.once("listening", r));
const port = (srv.address() as any).port;
const add = (r: Response) => withHeaders(r, ["a=1"], { Vary: "Origin", "Access-Control-Allow-Origin": "x" });
const cases: [string, () => Promise<Response> | Response][] = [
  ["redirect", () => Response.redirect("http://x.test/", 301)],
  ["fetched", () => fetch(`http://127.0.0.1:${port}/`)],
  ["teapot", () => new Response("t", { status: 418, statusText: "Teapot!" })],
  ["204", () => new Response(null, { status: 204 })],
  ["used", async () => { const r = new Response("u"); await r.text(); return r; }],
  ["error", () => Response.error()],
];
for (const [n, make] of cases) { try { const o = await make(); const c = add(o); console.log(n, c === o ? "same" : "copy", c.status, JSON.stringify(c.statusText), c.headers.get("vary"), c.headers.getSetCookie(), "orig-vary:", o.headers.get("vary"), c.bodyUsed ? "" : JSON.stringify(await c.text())); } catch (e) { console.log(n, "THROWS", (e as Error).message); } }
srv.close();
