import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ): 100 on every Linux build in use. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, every thread) a process has used so far, in seconds, from
 * /proc/<pid>/stat; NaN where there is no /proc (the figure is then reported as n/a).
 */
export function readCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Microseconds of CPU per response: steadier than throughput where other tenants take cores. */
export function cpuMicrosPerResponse(cpuSeconds: number, responses: number): number {
  return responses > 0 ? (cpuSeconds * 1e6) / responses : Number.NaN;
}
