import { existsSync } from "node:fs";
import { parseBenchOptions, USAGE, type BenchOptions, type RowGroupName } from "./options.js";
import type { BenchRow } from "./report/bench-row.js";
import { formatMachine, formatTable } from "./report/format-table.js";
import { machineInfo } from "./report/machine-info.js";
import { summarise, writeResults, type BenchResults } from "./report/results-file.js";
import { generationRows } from "./rows/generation.rows.js";
import { inferenceRows } from "./rows/inference.rows.js";
import { memoryRows } from "./rows/memory.rows.js";
import { noisyRows } from "./rows/noisy.rows.js";
import { openAiRows } from "./rows/openai.rows.js";
import { queueRows } from "./rows/queue.rows.js";
import { routingRows } from "./rows/routing.rows.js";
import type { RowGroup } from "./rows/row-group.js";
import { speechFirstByteRows } from "./rows/speech-first-byte.rows.js";
import { speechRows } from "./rows/speech.rows.js";
import { statusStepRows } from "./rows/status-steps.rows.js";
import { statusRows } from "./rows/status.rows.js";
import { submitRows } from "./rows/submit.rows.js";
import { batchRows } from "./rows/batch.rows.js";
import { takeOverRows } from "./rows/takeover.rows.js";
import { waitingRows } from "./rows/waiting.rows.js";
import { startBenchStack, type BenchStack } from "./stack/bench-stack.js";
import { startedProcesses, stopAllChildren } from "./stack/child-processes.js";
import { closeHttpAgent } from "./stack/net.js";

const GROUPS: Record<RowGroupName, RowGroup> = {
  memory: memoryRows,
  submit: submitRows,
  status: statusRows,
  "status-steps": statusStepRows,
  queue: queueRows,
  noisy: noisyRows,
  waiting: waitingRows,
  speech: speechRows,
  "speech-first-byte": speechFirstByteRows,
  generation: generationRows,
  inference: inferenceRows,
  openai: openAiRows,
  routing: routingRows,
  takeover: takeOverRows,
  batch: batchRows,
};

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

function optionsOrExit(): BenchOptions {
  try {
    return parseBenchOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  }
}

async function runGroups(stack: BenchStack, options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const group of options.rowGroups.map((name) => GROUPS[name])) {
    const started = Date.now();
    log(`${group.name}...`);
    rows.push(...(await group.run({ stack, options, log })));
    log(`${group.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return rows;
}

async function main(options: BenchOptions): Promise<void> {
  if (!existsSync(options.model)) throw new Error(`model not found: ${options.model} (pass --model FILE)`);
  const startedAt = new Date();
  const machine = machineInfo(startedAt);
  log(`machine: ${formatMachine(machine)}`);
  const stack = await startBenchStack({ profileDir: options.profileDir });
  let rows: BenchRow[];
  try {
    rows = await runGroups(stack, options);
  } finally {
    await stack.stop();
  }
  const { out, ...settings } = options;
  const summary = summarise(rows);
  const results: BenchResults = {
    tool: "chorus-bench",
    formatVersion: 1,
    machine,
    settings,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    rows,
    summary,
  };
  await writeResults(out, results);
  process.stdout.write(`\n${formatTable(rows)}\n\nmachine: ${formatMachine(machine)}\n`);
  process.stdout.write(
    `targets: ${summary.passed} passed, ${summary.failed} failed, ${summary.withoutTarget} reported without a target\nresults: ${out}\n`,
  );
  if (options.profileDir)
    process.stdout.write(
      `gateway CPU profile: ${options.profileDir} (summarise: node bench/dist/profile/summarise-cpu-profile.js FILE)\n`,
    );
}

const options = optionsOrExit();
let exiting = false;
/** Whatever ends the bench (signal, crash), the processes it started go with it. */
function stopEverythingAndExit(code: number, why: string): void {
  if (exiting) return;
  exiting = true;
  log(`${why}: stopping every process the bench started`);
  void stopAllChildren(3000).finally(() => process.exit(code));
}
process.on("SIGINT", () => stopEverythingAndExit(130, "SIGINT"));
process.on("SIGTERM", () => stopEverythingAndExit(143, "SIGTERM"));
process.on("uncaughtException", (error) => stopEverythingAndExit(1, `uncaught ${error.stack ?? error.message}`));
process.on("unhandledRejection", (reason) => stopEverythingAndExit(1, `unhandled rejection ${String(reason)}`));

try {
  await main(options);
} catch (error) {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAllChildren(3000);
  closeHttpAgent();
  const started = startedProcesses().map((p) => `${p.label} ${p.pid}`);
  log(`stopped every process it started: ${started.join(", ") || "(none)"}`);
}
