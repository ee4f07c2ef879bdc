/**
 * Summarises a `.cpuprofile` written by `npm run bench -- --profile <dir>`: where the
 * server's time went, by function (self time) and by package.
 * `tsx bench/profile.ts <file.cpuprofile> [top]`.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const file = process.argv[2];
if (file === undefined) throw new Error("usage: tsx bench/profile.ts <file.cpuprofile> [top]");
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
// Shares are of the busy samples: the profile also spans start-up and the pauses between load runs.
const idleIds = new Set(profile.nodes.filter((node) => node.callFrame.functionName === "(idle)").map((node) => node.id));
const total = profile.samples.filter((id) => !idleIds.has(id)).length;

function owner(url: string): string {
  if (url === "") return "(native / GC / idle)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return pkg[1]!;
  if (url.includes("/dist/")) return "services-session-auth (dist)";
  if (url.startsWith("node:")) return "node internals";
  const src = /\/(src|bench|examples)\/(.*)$/.exec(url);
  return src === null ? url : `${src[1]}/${src[2]}`;
}

const bySelf = new Map<string, number>();
const byOwner = new Map<string, number>();
for (const node of profile.nodes) {
  if (idleIds.has(node.id)) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || "(anonymous)"} ${owner(url)}:${lineNumber + 1}`;
  bySelf.set(key, (bySelf.get(key) ?? 0) + node.hitCount);
  byOwner.set(owner(url), (byOwner.get(owner(url)) ?? 0) + node.hitCount);
}
const percent = (hits: number) => `${((100 * hits) / total).toFixed(1).padStart(5)}%`;
const show = (title: string, map: Map<string, number>) => {
  console.log(title);
  for (const [key, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${percent(hits)}  ${key}`);
};
show(`self time by package or file, share of ${total} busy samples`, byOwner);
show("self time by function", bySelf);
