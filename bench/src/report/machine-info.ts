import { cpus, loadavg, release, totalmem, type } from "node:os";

export interface MachineInfo {
  os: string;
  cpuModel: string;
  cpuCount: number;
  totalMemoryMB: number;
  /** 1-minute load average when the run started: a hint of how noisy the machine was. */
  loadAverage1m: number;
  node: string;
  date: string;
}

export function machineInfo(now = new Date()): MachineInfo {
  const cores = cpus();
  return {
    os: `${type()} ${release()}`,
    cpuModel: cores[0]?.model.trim() ?? "unknown",
    cpuCount: cores.length,
    totalMemoryMB: Math.round(totalmem() / 2 ** 20),
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    node: process.version,
    date: now.toISOString(),
  };
}
