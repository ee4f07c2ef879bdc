// The demo page's client: the same calls a Drupal 7 mobile app makes, from a browser.
// The session cookie is HttpOnly, so the page never sees it; it keeps only the CSRF token,
// which unsafe methods (POST) must send as X-CSRF-Token while a session is live.

import { fetchJson } from "./fetch-json.js";
import { say } from "./message.js";

const API = "/services/json";
const $ = (selector) => document.querySelector(selector);

/** The session's CSRF token, from the login reply or services/session/token. */
let token = "";

function call(method, path, { body, csrf = false } = {}) {
  return fetchJson(method, path, { body, headers: csrf && token !== "" ? { "X-CSRF-Token": token } : {} });
}

/** The message of a Services error body (`["Wrong username or password."]`). */
function serverMessage(data) {
  return Array.isArray(data) && typeof data[0] === "string" ? data[0].replace(/<[^<>]*>/g, "") : "";
}

function quiet() {
  $("#message").hidden = true;
}

function showLogin() {
  token = "";
  $("#app-view").hidden = true;
  $("#login-view").hidden = false;
  $("#login-form").reset();
  $("#login-form input[name=username]").focus();
}

function showUser(user) {
  $("#user-name").textContent = user.name;
  const roles = Object.values(user.roles ?? {}).filter((role) => role !== "authenticated user");
  $("#user-roles").textContent = roles.length > 0 ? `(${roles.join(", ")})` : "";
  $("#login-view").hidden = true;
  $("#app-view").hidden = false;
}

function fill(table, rows, cells) {
  const body = $(`${table} tbody`);
  body.replaceChildren(
    ...rows.map((row) => {
      const tr = document.createElement("tr");
      for (const [value, numeric] of cells(row)) {
        const td = document.createElement("td");
        td.textContent = String(value);
        if (numeric) td.className = "number";
        tr.append(td);
      }
      return tr;
    }),
  );
}

/** A session that was live a moment ago is gone: idle or absolute timeout, logout elsewhere, revoked. */
function sessionEnded() {
  showLogin();
  say("error", "Your session has expired or was ended. Please log in again.");
}

async function loadTables() {
  const [players, events, courses] = await Promise.all(["players", "events", "courses"].map((name) => call("GET", `${API}/${name}.json`)));
  const failed = [players, events, courses].find((reply) => reply.status !== 200);
  if (failed?.status === 401) return sessionEnded();
  if (failed !== undefined) return say("error", `The sports data could not be loaded (HTTP ${failed.status}).`);
  const courseName = new Map(courses.data.map((course) => [course.id, course.name]));
  fill("#players", players.data, (p) => [[p.name], [p.country], [p.handicap.toFixed(1), true]]);
  fill("#events", events.data, (e) => [[e.title], [courseName.get(e.courseId) ?? "?"], [e.date]]);
  fill("#courses", courses.data, (c) => [[c.name], [c.city], [c.par, true]]);
}

/** On load: is there a live session already? (The token call answers a random token to anonymous callers.) */
async function resume() {
  const res = await fetch("/services/session/token", { credentials: "same-origin", cache: "no-store" });
  token = res.ok ? await res.text() : "";
  const connect = await call("POST", `${API}/system/connect.json`, { csrf: true });
  if (connect.status === 200 && String(connect.data.user.uid) !== "0") {
    showUser(connect.data.user);
    await loadTables();
  } else {
    showLogin();
    if (connect.status === 503) say("error", "The service is temporarily unavailable. Try again in a few seconds.");
  }
}

const LOGIN_MESSAGES = {
  401: () => "Wrong user name or password.",
  403: () => "This account is blocked or has not been activated.",
  406: (message) => (/temporarily blocked/.test(message) ? `Too many failed logins: ${message.replace(/\.$/, "").toLowerCase()}. Try again later.` : message),
  503: () => "The service is temporarily unavailable. Try again in a few seconds.",
};

async function logIn(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const button = form.querySelector("button");
  const data = new FormData(form);
  button.disabled = true;
  try {
    const reply = await call("POST", `${API}/user/login.json`, {
      body: { username: data.get("username"), password: data.get("password") },
    });
    if (reply.status === 200) {
      token = reply.data.token;
      quiet();
      showUser(reply.data.user);
      await loadTables();
      return;
    }
    // "Already logged in" (406): another tab logged in meanwhile; pick that session up.
    if (reply.status === 406 && /^Already logged in/.test(serverMessage(reply.data))) return resume();
    const describe = LOGIN_MESSAGES[reply.status];
    say("error", describe === undefined ? `Login failed (HTTP ${reply.status}).` : describe(serverMessage(reply.data)));
    form.querySelector("input[name=password]").value = "";
  } finally {
    button.disabled = false;
  }
}

async function logOut() {
  const reply = await call("POST", `${API}/user/logout.json`, { csrf: true });
  if (reply.status === 200) {
    showLogin();
    say("info", "You are logged out.");
  } else if (reply.status === 406) {
    sessionEnded();
  } else if (reply.status === 401) {
    // CSRF validation failed: the token is out of date (the session changed in another tab).
    await resume();
    say("error", "Logout was refused because the page was out of date. Please try again.");
  } else {
    say("error", `Logout failed (HTTP ${reply.status}).`);
  }
}

$("#login-form").addEventListener("submit", (event) => void logIn(event));
$("#logout").addEventListener("click", () => void logOut());
$("#refresh").addEventListener("click", () => {
  quiet();
  void loadTables();
});
void resume();
