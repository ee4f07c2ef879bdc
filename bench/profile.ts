/**
 * Summarises a `.cpuprofile` written by `npm run bench -- --profile <dir>`: where the
 * server's time went, by function (self time), by package, and the package's own functions
 * with what they call (inclusive time).
 * `tsx bench/profile.ts <file.cpuprofile> [top] [--last <seconds>]`: `--last 5` keeps only the
 * samples of the profile's last 5 s (the measured window, without start-up and warm-up).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { last: { type: "string" } } });
const file = positionals[0];
if (file === undefined) throw new Error("usage: tsx bench/profile.ts <file.cpuprofile> [top] [--last <seconds>]");
const top = Number(positionals[1] ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

// The samples kept: all, or those of the last seconds (timeDeltas are µs between samples).
const times: number[] = [];
let clock = 0;
for (const delta of profile.timeDeltas) times.push((clock += delta));
const from = values.last === undefined ? -Infinity : clock - Number(values.last) * 1e6;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
// Shares are of the busy samples: the profile also spans start-up and the pauses between load runs.
const idle = (id: number) => byId.get(id)!.callFrame.functionName === "(idle)";
const kept = profile.samples.filter((id, i) => times[i]! >= from && !idle(id));
const total = kept.length;

function owner(url: string): string {
  if (url === "") return "(native / GC / idle)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return pkg[1]!;
  if (url.includes("/dist/")) return "services-session-auth (dist)";
  if (url.startsWith("node:")) return "node internals";
  const src = /\/(src|bench|examples)\/(.*)$/.exec(url);
  return src === null ? url : `${src[1]}/${src[2]}`;
}
const keyOf = (node: ProfileNode) => `${node.callFrame.functionName || "(anonymous)"} ${owner(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
const ours = (node: ProfileNode) => node.callFrame.url.includes("/dist/");

const bySelf = new Map<string, number>();
const byOwner = new Map<string, number>();
const inclusive = new Map<string, number>();
let underOurs = 0;
const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
for (const id of kept) {
  const leaf = byId.get(id)!;
  add(bySelf, keyOf(leaf));
  add(byOwner, owner(leaf.callFrame.url));
  // Each of the package's functions on this sample's stack, once.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = byId.get(at)!;
    if (ours(node)) seen.add(keyOf(node));
  }
  for (const key of seen) add(inclusive, key);
  if (seen.size > 0) underOurs += 1;
}
const percent = (hits: number) => `${((100 * hits) / total).toFixed(1).padStart(5)}%`;
const show = (title: string, map: Map<string, number>) => {
  console.log(title);
  for (const [key, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${percent(hits)}  ${key}`);
};
show(`self time by package or file, share of ${total} busy samples${values.last === undefined ? "" : ` in the last ${values.last} s`}`, byOwner);
show("self time by function", bySelf);
console.log(`the package's functions on the stack: ${percent(underOurs)} of the busy samples`);
show("the package's functions, inclusive (with what they call)", inclusive);
