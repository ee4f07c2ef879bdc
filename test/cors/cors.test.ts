/**
 * CORS on its own: requests described as plain objects, decisions read as plain objects.
 * No Express, no HTTP.
 */
import { describe, expect, it } from "vitest";
import { corsAtPath, corsCovers, corsDecision, isServicesVersionHeader, withCorsHeaders, type CorsRequest } from "../../src/cors/cors.js";
import { mergeVary } from "../../src/http-output/headers.js";
import { crossSiteCookieProblem } from "../../src/origins/cross-site-cookie.js";
import { corsSettings, type CorsConfig } from "../../src/cors/options.js";
import { isCrossSite, siteOf } from "../../src/origins/site.js";

const APP = "capacitor://localhost";

function settings(config: CorsConfig | false = {}, origins: readonly string[] = [APP, "https://app.example.org"]) {
  return corsSettings({ cors: config }, new Set(origins));
}

function request(init: Partial<CorsRequest> = {}): CorsRequest {
  return { method: "GET", origin: APP, requestMethod: undefined, requestHeaders: undefined, ...init };
}

describe("corsDecision", () => {
  it("echoes a listed origin with credentials on an actual request, never *", () => {
    expect(corsDecision(request(), settings())).toEqual({
      headers: { "Access-Control-Allow-Origin": APP, "Access-Control-Allow-Credentials": "true", Vary: "Origin" },
    });
    // As the browser sent it (it compares the echo byte for byte), though listed in another case.
    expect(corsDecision(request({ origin: "https://APP.example.org" }), settings())).toMatchObject({
      headers: { "Access-Control-Allow-Origin": "https://APP.example.org" },
    });
  });

  it("gives an origin that is not listed, or no origin, nothing but Vary: Origin", () => {
    for (const origin of ["https://evil.example", undefined, "https://app.example.org/path", "garbage"]) {
      expect(corsDecision(request({ origin }), settings())).toEqual({ headers: { Vary: "Origin" } });
    }
    // null never, even in a set built around the option's check.
    expect(corsDecision(request({ origin: "null" }), settings({}, [APP, "null"]))).toEqual({ headers: { Vary: "Origin" } });
    const nullPreflight = request({ origin: "null", method: "OPTIONS", requestMethod: "POST" });
    expect(corsDecision(nullPreflight, settings({}, [APP, "null"]))).toEqual({ headers: { Vary: "Origin" } });
  });

  it("answers a listed origin's preflight with the methods, the allowed requested headers and a max-age", () => {
    const decision = corsDecision(
      request({
        method: "OPTIONS",
        requestMethod: "POST",
        requestHeaders: "content-type, x-csrf-token, services_user_login_version, Services-System-Connect-Version",
      }),
      settings(),
    );
    expect(decision).toEqual({
      preflight: {
        status: 204,
        body: null,
        headers: {
          "Access-Control-Allow-Origin": APP,
          "Access-Control-Allow-Credentials": "true",
          "Access-Control-Allow-Methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
          "Access-Control-Allow-Headers": "content-type, x-csrf-token, services_user_login_version, services-system-connect-version",
          "Access-Control-Max-Age": "600",
          "Cache-Control": "no-store",
          Vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
        },
      },
    });
  });

  it("leaves out a requested header it does not allow, so the browser refuses the call", () => {
    const decision = corsDecision(request({ method: "OPTIONS", requestMethod: "PUT", requestHeaders: "x-csrf-token,authorization" }), settings());
    expect("preflight" in decision && decision.preflight.headers["Access-Control-Allow-Headers"]).toBe("x-csrf-token");
  });

  it("leaves an unlisted origin's preflight, and a plain OPTIONS, to the routes", () => {
    expect(corsDecision(request({ origin: "https://evil.example", method: "OPTIONS", requestMethod: "POST" }), settings())).toEqual({
      headers: { Vary: "Origin" },
    });
    expect(corsDecision(request({ method: "OPTIONS" }), settings())).not.toHaveProperty("preflight");
  });

  it("follows the options: methods, headers, exposed headers, max-age, no credentials", () => {
    const custom = settings({ methods: ["get", "post"], allowedHeaders: ["Authorization"], exposedHeaders: ["X-Total-Count"], maxAge: 60, credentials: false });
    expect(corsDecision(request(), custom)).toEqual({
      headers: { "Access-Control-Allow-Origin": APP, Vary: "Origin", "Access-Control-Expose-Headers": "X-Total-Count" },
    });
    const preflight = corsDecision(request({ method: "OPTIONS", requestMethod: "POST", requestHeaders: "authorization, x-csrf-token" }), custom);
    expect(preflight).toMatchObject({
      preflight: { headers: { "Access-Control-Allow-Methods": "GET, POST", "Access-Control-Allow-Headers": "authorization", "Access-Control-Max-Age": "60" } },
    });
  });

  it("is off when turned off, or when no origin is listed", () => {
    expect(settings(false).enabled).toBe(false);
    expect(settings({}, []).enabled).toBe(false);
    expect(settings().enabled).toBe(true);
  });
});

describe("corsCovers", () => {
  it("covers the endpoint and below, services/session/token, and the path patterns, * matching slashes too", () => {
    const patterns = settings({ paths: ["api/*", "/me", "/files/*/meta"] }).paths;
    for (const path of [
      "/services/json",
      "/services/json/user/login.json",
      "/services/json/players/3",
      "/services/session/token",
      "/services/session/token/",
      "/api/x/y",
      "/me",
      "/files/a/b/meta",
    ]) {
      expect(corsCovers(path, "/services/json", patterns), path).toBe(true);
    }
    for (const path of [
      "/",
      "/services/jsonx",
      "/services/session/token2",
      "/services/session/token//",
      "/apix",
      "/me/too",
      "/files/meta",
      "/files/a/metadata",
    ]) {
      expect(corsCovers(path, "/services/json", patterns), path).toBe(false);
    }
  });

  it("reads the Services version headers as Services does", () => {
    expect(["services_user_login_version", "services-user-login-version", "services_system_connect_version"].every(isServicesVersionHeader)).toBe(true);
    expect(["services_version", "x-services_user_login_version", "services_user_login_versions"].some(isServicesVersionHeader)).toBe(false);
  });
});

describe("corsAtPath", () => {
  it("decides only where CORS is on and covers the path, reading the request only then", () => {
    let read = 0;
    const describe = () => (read++, request({ method: "OPTIONS", requestMethod: "POST" }));
    expect(corsAtPath("/welcome", "/services/json", settings(), describe)).toBeUndefined();
    expect(corsAtPath("/services/json/user/login", "/services/json", settings(false), describe)).toBeUndefined();
    expect(read).toBe(0);
    expect(corsAtPath("/services/session/token", "/services/json", settings(), describe)).toMatchObject({ preflight: { status: 204 } });
    expect(corsAtPath("/welcome", "/services/json", settings({ paths: ["/wel*"] }), describe)).toHaveProperty("preflight");
    expect(read).toBe(2);
  });
});

describe("Vary and wire replies", () => {
  it("merges Vary values, each name once whatever its case, in order", () => {
    expect(mergeVary(undefined, "Origin")).toBe("Origin");
    expect(mergeVary("", "Origin")).toBe("Origin");
    expect(mergeVary("Accept", "Origin")).toBe("Accept, Origin");
    expect(mergeVary("Origin, Accept", " origin ,Accept-Encoding,")).toBe("Origin, Accept, Accept-Encoding");
  });

  it("adds CORS headers to a wire reply, CORS's Vary first, the reply itself untouched", () => {
    const wire = { status: 200, headers: { "Content-Type": "application/json", Vary: "Accept" }, body: "[]" };
    expect(withCorsHeaders(wire, undefined)).toBe(wire);
    expect(withCorsHeaders(wire, { "Access-Control-Allow-Origin": APP, Vary: "Origin" })).toEqual({
      status: 200,
      headers: { "Content-Type": "application/json", Vary: "Origin, Accept", "Access-Control-Allow-Origin": APP },
      body: "[]",
    });
    expect(wire.headers.Vary).toBe("Accept");
    expect(withCorsHeaders({ status: 401, headers: {}, body: null }, { Vary: "Origin" }).headers).toEqual({ Vary: "Origin" });
  });
});

describe("sites and cross-site cookies", () => {
  it("compares scheme and registrable domain, ports aside; null is another site to all", () => {
    expect(siteOf("https://api.example.com:8443")).toBe("https://example.com");
    expect(siteOf("https://shop.example.co.uk")).toBe("https://example.co.uk");
    expect(siteOf("http://127.0.0.1:3000")).toBe("http://127.0.0.1");
    expect(isCrossSite("http://localhost:18901", "http://localhost:18900")).toBe(false);
    expect(isCrossSite("https://app.example.com", "https://api.example.com")).toBe(false);
    expect(isCrossSite("https://app.example.org", "https://api.example.com")).toBe(true);
    expect(isCrossSite("http://localhost", "https://localhost")).toBe(true);
    expect(isCrossSite(APP, "https://api.example.com")).toBe(true);
    expect(isCrossSite("null", "https://api.example.com")).toBe(true);
  });

  it("names the options to set when a cross-site app's cookie would be dropped, and plain http", () => {
    const lax = { sameSite: undefined, cookieSecure: "auto" } as const;
    const none = { sameSite: "None", cookieSecure: "always" } as const;
    expect(crossSiteCookieProblem("https://app.example.com", "https://api.example.com", lax)).toBeUndefined();
    expect(crossSiteCookieProblem(APP, "https://api.example.com", lax)).toMatch(/sameSite: "none" and cookieSecure: "always"/);
    expect(crossSiteCookieProblem(APP, "https://api.example.com", none)).toBeUndefined();
    expect(crossSiteCookieProblem(APP, "https://api.example.com", none, true)).toBeUndefined();
    expect(crossSiteCookieProblem(APP, "http://api.example.com", none, false)).toMatch(/plain http.*will not stick/);
  });
});
