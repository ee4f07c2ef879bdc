import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { progressReporter } from "../../src/cli/progress.js";

/** A stderr that keeps what is written. */
function stderr(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, columns: 100, write: (chunk: string) => (written.push(chunk), true) } };
}

const at = (read: number) => ({ read, total: 4000, imported: read, skipped: 0 });

describe("the import's progress on stderr", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("redraws one bar in place on a terminal, at most every 100 ms, and ends it with the last page", () => {
    const { written, stream } = stderr(true);
    const progress = progressReporter(stream);
    vi.advanceTimersByTime(150);
    progress.update(at(1000));
    progress.update(at(2000)); // too soon after the last draw
    vi.advanceTimersByTime(150);
    progress.update(at(3000));
    progress.update(at(4000));
    progress.done();
    expect(written.map((chunk) => chunk.match(/^\r\[[#-]+\] +(\d+)%/)?.[1] ?? chunk)).toEqual(["25", "75", "100", "\n"]);
    expect(written[2]).toContain("4,000/4,000 rows");
  });

  it("writes a plain line every 5 seconds elsewhere, and nothing to undo at the end", () => {
    const { written, stream } = stderr(false);
    const progress = progressReporter(stream);
    progress.update(at(1000));
    vi.advanceTimersByTime(5000);
    progress.update(at(2000));
    progress.update(at(3000));
    progress.done();
    expect(written).toEqual([expect.stringMatching(/^import-sessions: 2,000\/4,000 rows {2}[\d,]+ rows\/s \(50%\)\n$/)]);
  });
});
