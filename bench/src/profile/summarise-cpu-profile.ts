import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/**
 * Prints the top self-time functions of a V8 .cpuprofile (as written by `node --cpu-prof`), and
 * the same grouped by package, e.g.:
 *   node bench/dist/profile/summarise-cpu-profile.js /tmp/prof/CPU.*.cpuprofile [--top 25]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  where: string;
  ms: number;
  percent: number;
}

function location(url: string, line: number): string {
  if (!url) return "(native)";
  const path = url.replace(/^file:\/\//, "");
  const inModules = path.lastIndexOf("node_modules/");
  const short = inModules >= 0 ? path.slice(inModules + "node_modules/".length) : relative(process.cwd(), path);
  return `${short}:${line + 1}`;
}

/** Self time per function (samples x interval), largest first. */
export function selfTimes(profile: CpuProfile): SelfTime[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, { name: string; where: string; us: number }>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    all += us;
    const name = node.callFrame.functionName || "(anonymous)";
    const where = location(node.callFrame.url, node.callFrame.lineNumber);
    const key = `${name}@${where}`;
    const entry = totals.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    totals.set(key, entry);
  });
  return [...totals.values()]
    .map((t) => ({ name: t.name, where: t.where, ms: t.us / 1000, percent: (100 * t.us) / Math.max(all, 1) }))
    .sort((a, b) => b.ms - a.ms);
}

/** Self time per package (node_modules/<pkg>), per app file, native and idle. */
export function byPackage(times: SelfTime[]): Array<{ group: string; percent: number }> {
  const groups = new Map<string, number>();
  for (const t of times) {
    const match = /^(@[^/]+\/[^/]+|[^/(]+)\//.exec(t.where);
    const group = t.where.startsWith("(") ? t.name : (match?.[1] ?? t.where.split(":")[0] ?? t.where);
    groups.set(group, (groups.get(group) ?? 0) + t.percent);
  }
  return [...groups.entries()].map(([group, percent]) => ({ group, percent })).sort((a, b) => b.percent - a.percent);
}

/** The package (or app file) a frame belongs to; null for Node internals and native code. */
function owner(url: string): string | null {
  const path = url.replace(/^file:\/\//, "");
  const inModules = /node_modules\/(@[^/]+\/[^/]+|[^/]+)\//.exec(path.slice(path.lastIndexOf("node_modules/")));
  if (inModules?.[1]) return inModules[1];
  const inRepo = /\/((?:apps|packages)\/[^/]+\/dist\/.*)$/.exec(path);
  return inRepo?.[1] ?? null;
}

/**
 * Self time attributed to the nearest package or app file up the stack, so native work (socket
 * writes, JSON, crypto) counts against whoever asked for it. Samples with no such frame stay
 * under their own name (idle, garbage collector, Node's HTTP server).
 */
export function byOrigin(profile: CpuProfile): Array<{ group: string; ms: number; percent: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const origin = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const found = owner(byId.get(at)?.callFrame.url ?? "");
      if (found) return found;
    }
    const frame = byId.get(id)?.callFrame;
    return frame?.url ? `node:${frame.url.replace(/^node:/, "").split("/")[0] ?? ""}` : (frame?.functionName ?? "?");
  };
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    all += us;
    const group = origin(id);
    totals.set(group, (totals.get(group) ?? 0) + us);
  });
  return [...totals.entries()]
    .map(([group, us]) => ({ group, ms: us / 1000, percent: (100 * us) / Math.max(all, 1) }))
    .sort((a, b) => b.ms - a.ms);
}

function main(argv: string[]): void {
  // Piped into `head`: stop quietly when the reader goes away.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => process.exit(error.code === "EPIPE" ? 0 : 1));
  const { values, positionals: files } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { top: { type: "string", default: "25" } },
  });
  const top = Number(values.top);
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    const times = selfTimes(profile);
    process.stdout.write(`\n${file}\n  self%   self ms  function  (location)\n`);
    for (const t of times.slice(0, top))
      process.stdout.write(
        `  ${t.percent.toFixed(1).padStart(5)}  ${t.ms.toFixed(0).padStart(8)}  ${t.name}  (${t.where})\n`,
      );
    process.stdout.write("\n  self time by package / file:\n");
    for (const g of byPackage(times).slice(0, top))
      process.stdout.write(`  ${g.percent.toFixed(1).padStart(5)}  ${g.group}\n`);
    process.stdout.write(
      "\n  self time by nearest package or app frame on the stack (native work counted to its caller):\n",
    );
    for (const g of byOrigin(profile).slice(0, top))
      process.stdout.write(`  ${g.percent.toFixed(1).padStart(5)}  ${g.group}\n`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
