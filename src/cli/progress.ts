import type { ImportDrupal7SessionsProgress } from "../drupal/carry-over-in-bulk.js";
import type { Io } from "./usage.js";

/** How often the bar is redrawn on a terminal, and a line is written elsewhere (a log, a CI job). */
const TTY_EVERY_MS = 100;
const LINE_EVERY_MS = 5000;

/** Reports an import's progress on stderr: a bar redrawn on a terminal, else a line every few seconds for the log; `done` ends it. */
export function progressReporter(stderr: Io["stderr"]): { update(progress: ImportDrupal7SessionsProgress): void; done(): void } {
  const tty = stderr.isTTY === true;
  const started = performance.now();
  let last = started;
  let drawn = false;
  let latest: ImportDrupal7SessionsProgress | undefined;

  const describe = ({ read, total }: ImportDrupal7SessionsProgress) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(read / seconds) : 0;
    const share = total > 0 ? Math.min(1, read / total) : 1;
    return { share, text: `${read.toLocaleString("en-US")}/${total.toLocaleString("en-US")} rows  ${rate.toLocaleString("en-US")} rows/s` };
  };

  const draw = (progress: ImportDrupal7SessionsProgress) => {
    const { share, text } = describe(progress);
    const width = Math.max(10, Math.min(40, (stderr.columns || 80) - text.length - 10));
    const filled = Math.round(share * width);
    stderr.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${text}\x1b[K`);
    drawn = true;
  };

  return {
    update(progress) {
      latest = progress;
      const now = performance.now();
      if (now - last < (tty ? TTY_EVERY_MS : LINE_EVERY_MS)) return;
      last = now;
      if (tty) draw(progress);
      else stderr.write(`import-sessions: ${describe(progress).text} (${Math.floor(describe(progress).share * 100)}%)\n`);
    },
    done() {
      if (!tty) return;
      // The last page always shows, however soon after the previous one it came.
      if (latest !== undefined) draw(latest);
      if (drawn) stderr.write("\n");
    },
  };
}
