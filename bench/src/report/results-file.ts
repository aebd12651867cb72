import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { BenchRow } from "./bench-row.js";
import type { MachineInfo } from "./machine-info.js";

/** The JSON file: the same figures as the table, plus how and where they were measured. */
export interface BenchResults {
  tool: "chorus-bench";
  formatVersion: 1;
  machine: MachineInfo;
  settings: Record<string, unknown>;
  startedAt: string;
  finishedAt: string;
  rows: BenchRow[];
  summary: { passed: number; failed: number; withoutTarget: number };
}

export function summarise(rows: readonly BenchRow[]): BenchResults["summary"] {
  return {
    passed: rows.filter((r) => r.pass === true).length,
    failed: rows.filter((r) => r.pass === false).length,
    withoutTarget: rows.filter((r) => r.pass === null).length,
  };
}

/** Non-finite numbers (a ratio over zero) become null in JSON; the reader sees "no figure". */
export async function writeResults(file: string, results: BenchResults): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
}
