import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium, which the browser tests drive through playwright-core. */
export const CHROMIUM = "/usr/bin/chromium";
export const chromiumPresent = existsSync(CHROMIUM);
/** CI sets REQUIRE_BROWSER=1: a missing browser is then a failure, never a skip. */
export const browserRequired = process.env.REQUIRE_BROWSER === "1";

/**
 * Headless Chromium as it runs here: as root (no sandbox), no GPU, and no background traffic,
 * whose connections this machine's closed network would refuse at every start.
 */
export const QUIET_CHROMIUM_FLAGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Chromium headless and quiet, with a fresh throw-away profile (launch() makes one per run), and `args` besides. */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...QUIET_CHROMIUM_FLAGS, ...args] });
}
