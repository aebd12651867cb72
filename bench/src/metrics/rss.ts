import { readFileSync } from "node:fs";
import { sleep } from "./clock.js";
import { median } from "./stats.js";

/** Resident memory of a process in MB, from /proc/<pid>/status (VmRSS); NaN when unreadable. */
export function readRssMb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Median of a few readings of an idle process (RSS wobbles slightly as timers and GC run). */
export async function idleRssMb(pid: number, readings = 5, intervalMs = 100): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < readings; i++) {
    values.push(readRssMb(pid));
    if (i < readings - 1) await sleep(intervalMs);
  }
  return median(values.filter(Number.isFinite));
}

/** Reads RSS of each named pid every `intervalMs` while `work` runs; returns the peak of each. */
export async function peakRssWhile<T>(
  pids: Record<string, number>,
  work: Promise<T>,
  intervalMs = 100,
): Promise<{ result: T; peakMb: Record<string, number> }> {
  const peakMb: Record<string, number> = {};
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const rss = readRssMb(pid);
      if (Number.isFinite(rss)) peakMb[name] = Math.max(peakMb[name] ?? 0, rss);
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  try {
    const result = await work;
    sample();
    return { result, peakMb };
  } finally {
    clearInterval(timer);
  }
}
