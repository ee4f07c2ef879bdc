import { z } from "zod";
import { parseOptions } from "../validate.js";
import type { PasswordHasher } from "../types.js";
import type { LegacyPasswordHasher } from "./drupal7-hasher.js";

function isHasher(value: unknown): value is PasswordHasher {
  const v = value as Partial<PasswordHasher> | null;
  return typeof v === "object" && v !== null && typeof v.hash === "function" && typeof v.verify === "function" && typeof v.needsRehash === "function";
}

const optionsSchema = z.strictObject({
  current: z.custom<PasswordHasher>(isHasher, "must be a PasswordHasher ({ hash, verify, needsRehash })"),
  legacy: z
    .array(
      z.custom<LegacyPasswordHasher>(
        (value) => isHasher(value) && typeof (value as Partial<LegacyPasswordHasher>).recognizes === "function",
        "must be a PasswordHasher with recognizes(hash)",
      ),
    )
    .min(1),
});

/** Options of {@link upgradingHasher}. */
export interface UpgradingHasherOptions {
  /** The hasher every new hash is made with, and that checks any hash no legacy hasher recognises. */
  current: PasswordHasher;
  /** Hashers for formats being phased out, asked in order which one owns a stored hash. */
  legacy: readonly LegacyPasswordHasher[];
}

/**
 * A {@link PasswordHasher} that moves users to `current` as they log in: verifies with the first
 * `legacy` hasher that `recognizes` a hash, rehashes every legacy hash, and keeps each owner's
 * `costClass`. Drupal cannot check upgraded hashes: beside a live Drupal use {@link drupal7Hasher} alone.
 *
 * @example
 * ```ts
 * import { scryptHasher } from "services-session-auth";
 * import { drupal7Hasher, upgradingHasher } from "services-session-auth/drupal";
 *
 * const hasher = upgradingHasher({ current: scryptHasher(), legacy: [drupal7Hasher()] });
 * ```
 * @throws TypeError when `current` is not a hasher or `legacy` is empty or lacks `recognizes`.
 */
export function upgradingHasher(options: UpgradingHasherOptions): PasswordHasher {
  const { current, legacy } = parseOptions(optionsSchema, options, "upgradingHasher");
  const owner = (hash: string): PasswordHasher => legacy.find((hasher) => hasher.recognizes(hash)) ?? current;

  return {
    hash(password) {
      return current.hash(password);
    },
    async verify(hash, password) {
      try {
        return await owner(hash).verify(hash, password);
      } catch {
        // The contract: a malformed or hostile hash is a failed login, never a rejection.
        return false;
      }
    },
    needsRehash(hash) {
      return legacy.some((hasher) => hasher.recognizes(hash)) || current.needsRehash(hash);
    },
    costClass(hash) {
      const hasher = owner(hash);
      return hasher.costClass?.(hash) ?? (hasher === current ? "current" : `legacy:${legacy.indexOf(hasher as LegacyPasswordHasher)}`);
    },
  };
}
