import { randomBytes } from "node:crypto";
import type { ProcessLocal } from "../types.js";

/** The declaration of a store held in this process's memory: a fresh random generation that no other instance shares. */
export function processLocal(): ProcessLocal {
  return Object.freeze({ generation: randomBytes(9).toString("base64url") });
}
