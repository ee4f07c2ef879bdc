import { IncomingMessage } from "node:http";
import type { Request } from "express";
import type { RequestAuth } from "../sessions/route-guard.js";

/**
 * Where `req.auth` is kept. An own property added to every guarded request gives Node's
 * requests one more hidden class, and the property reads of Express and Node that see them
 * all (a request goes through many shapes) get slower: about 2 µs of a 46 µs Express request
 * in process, most of what the guard cost. So Express's request prototype (the one its apps'
 * requests inherit from) gets an accessor over a weak map, defined when a guard first lets a
 * request through: `req.auth` reads and assigns as before, for the app's own code and other
 * middleware too, and a request keeps its shape. What changes for app code: the prototype is
 * shared by every app of that Express in the process, so `"auth" in req` is true on all their
 * requests (test `req.auth !== undefined`); `auth` is not among the request's own keys (spread,
 * `Object.keys`, `util.inspect`); `delete req.auth` does nothing (assign `undefined`). A request
 * whose chain has no such prototype (not Express's), or one that already has an `auth` of its
 * own or cannot take one (frozen), gets an own property, as before.
 *
 * @module
 */

const auths = new WeakMap<object, RequestAuth>();
/** Prototypes already looked at: the accessor was defined on their Express request prototype, or cannot be. */
const seen = new WeakSet<object>();

/** Sets `req.auth`, without an own property where Express's request prototype can hold it. */
export function setAuth(req: Request, auth: RequestAuth): void {
  const prototype = Object.getPrototypeOf(req) as object | null;
  if (prototype !== null && !seen.has(prototype)) {
    seen.add(prototype);
    defineSlot(prototype);
  }
  req.auth = auth;
}

/** Defines the accessor on Express's request prototype: the one in `prototype`'s chain that inherits from IncomingMessage itself. */
function defineSlot(prototype: object): void {
  let express: object | null = prototype;
  while (express !== null && Object.getPrototypeOf(express) !== IncomingMessage.prototype) express = Object.getPrototypeOf(express) as object | null;
  // Someone else's `auth` there, or a prototype frozen by hardening code: an own property, as before.
  if (express === null || Object.hasOwn(express, "auth") || !Object.isExtensible(express)) return;
  Object.defineProperty(express, "auth", {
    configurable: true,
    enumerable: false,
    get(this: object): RequestAuth | undefined {
      return auths.get(this);
    },
    set(this: object, value: RequestAuth | undefined) {
      if (value === undefined) auths.delete(this);
      else auths.set(this, value);
    },
  });
}
