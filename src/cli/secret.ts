import { randomBytes } from "node:crypto";
import { secretSchema } from "../keys/secret.js";
import { parse, type Io } from "./usage.js";

/** `secret`: prints 32 random bytes as base64url, checked by the rule the router applies to `secret`. */
export function secretCommand(args: readonly string[], io: Io): void {
  parse(args, {}, 0);
  let secret: string;
  // A random draw fails the weak-secret check about never (fewer than 8 distinct characters in 43), but the check is the contract.
  do secret = randomBytes(32).toString("base64url");
  while (!secretSchema.safeParse(secret).success);
  io.stdout.write(`${secret}\n`);
}
