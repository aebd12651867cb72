import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchResults } from "../src/report/results-file.js";

/**
 * Smoke test of `npm run bench` at tiny scale (--quick): the compiled bench starts its own Redis,
 * gateway, worker and baselines, runs every row (speech: wav only; generation: one 32-token job
 * per side), and writes its JSON. Only the structure and that every figure is a number are
 * asserted, never a speed: timings depend on the machine.
 */
const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const GROUPS = [
  "memory",
  "submit",
  "status",
  "status-steps",
  "queue",
  "noisy",
  "waiting",
  "speech",
  "speech-first-byte",
  "generation",
  "inference",
  "openai",
  "routing",
  "takeover",
  "batch",
];

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bench; a hang is a bench that says nothing for `silenceMs` (it logs each row group as it
 * starts and ends), not one that takes long: on a busy machine the whole run takes several times
 * its quiet ~60 s, and a wall-clock guard fired there while every group was still making progress.
 */
function runBench(args: string[], silenceMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let kill: NodeJS.Timeout | undefined;
    // On a hang, SIGTERM lets the bench stop what it started; SIGKILL only if that hangs too.
    const stopSilent = () => {
      stderr += `\n[test] no output for ${silenceMs / 1000} s: stopping the bench\n`;
      child.kill("SIGTERM");
      kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    };
    let silence = setTimeout(stopSilent, silenceMs);
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(stopSilent, silenceMs);
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      heard();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      heard();
    });
    child.once("exit", (code) => {
      clearTimeout(silence);
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
  });
}

const isNumber = (value: unknown) => typeof value === "number" && Number.isFinite(value);

let dir: string;
let run: RunResult;
let results: BenchResults;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run 'npx tsc -b' first`);
  dir = mkdtempSync(join(tmpdir(), "chorus-bench-"));
  const out = join(dir, "results.json");
  run = await runBench(["--quick", "--out", out], 180_000); // ~60 s in all on a quiet 2-core machine
  if (run.code !== 0) throw new Error(`bench exited with ${String(run.code)}:\n${run.stderr}`);
  results = JSON.parse(readFileSync(out, "utf8")) as BenchResults;
}, 30 * 60_000); // jest's own limit, far beyond any run that still makes progress

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("npm run bench -- --quick", () => {
  it("when it runs, then the JSON names the machine and the quick settings", () => {
    expect(results.machine).toEqual(
      expect.objectContaining({
        cpuModel: expect.any(String),
        cpuCount: expect.any(Number),
        totalMemoryMB: expect.any(Number),
        node: process.version,
        date: expect.any(String),
      }),
    );
    expect(results.settings).toEqual(
      expect.objectContaining({
        quick: true,
        durationS: 1,
        connections: 4,
        formats: ["wav"],
        generations: 1,
        maxTokens: 32,
      }),
    );
  });

  it("when it runs, then every row group is present in order", () => {
    const groups = results.rows.map((row) => row.group);
    expect([...new Set(groups)]).toEqual(GROUPS);
    expect(groups.filter((g) => g === "memory")).toHaveLength(4);
    expect(groups.filter((g) => g === "status-steps")).toHaveLength(7);
    expect(groups.filter((g) => g === "queue")).toHaveLength(2);
    // The quiet key's wait, and each key's share of the work with long and with alike requests.
    expect(groups.filter((g) => g === "noisy")).toHaveLength(3);
    expect(groups.filter((g) => g === "waiting")).toHaveLength(2);
    expect(groups.filter((g) => g === "speech")).toHaveLength(1);
    expect(groups.filter((g) => g === "speech-first-byte")).toHaveLength(1); // --quick: wav only
    expect(groups.filter((g) => g === "generation")).toHaveLength(2);
    // --quick: 1 and 2 jobs against the engine alone (no llama-server), next turn (vs its first turn
    // and vs the engine alone), burst (2).
    expect(groups.filter((g) => g === "inference")).toHaveLength(6);
    // --quick: streamed vs whole, whole vs native (the row against llama-server needs the anchor).
    expect(groups.filter((g) => g === "openai")).toHaveLength(2);
    // --quick: 4 chats' cached share and latency (the rows against llama-servers need the anchor), throughput.
    expect(groups.filter((g) => g === "routing")).toHaveLength(3);
    // The kill of a worker holding jobs (restart time) and what its locks cost Redis.
    expect(groups.filter((g) => g === "takeover")).toHaveLength(2);
    // --quick: the fixture model only (the larger model shape needs --larger-model).
    expect(groups.filter((g) => g === "batch")).toHaveLength(1);
  });

  it("when it runs, then every row has a subject, a baseline and a ratio that are numbers", () => {
    for (const row of results.rows) {
      expect({
        name: row.name,
        subject: isNumber(row.subject.value),
        baseline: isNumber(row.baseline.value),
        ratio: isNumber(row.ratio),
      }).toEqual({
        name: row.name,
        subject: true,
        baseline: true,
        ratio: true,
      });
      expect(row.ratio).toBeCloseTo(row.subject.value / row.baseline.value, 6);
    }
  });

  it("when a row has a target, then pass is a boolean; otherwise both are null", () => {
    for (const row of results.rows) {
      if (row.target === null) expect(row.pass).toBeNull();
      else expect(typeof row.pass).toBe("boolean");
    }
    const withTarget = results.rows.filter((row) => row.target !== null).map((row) => row.group);
    expect(withTarget).toEqual([
      "submit",
      "status",
      "queue",
      "queue",
      "noisy",
      "noisy",
      "noisy",
      "waiting",
      "speech-first-byte",
      "inference",
      "inference",
      "openai",
      "openai",
      "routing",
      "routing",
      "routing",
      "takeover",
      "batch",
    ]);
  });

  it("when throughput rows run, then both servers' CPU per response is measured and noted", () => {
    const throughput = results.rows.filter((r) => r.subject.unit === "req/s");
    expect(throughput.map((r) => r.group)).toEqual(["submit", "status", ...Array<string>(7).fill("status-steps")]);
    for (const row of throughput) {
      for (const figure of [row.subject, row.baseline]) expect(figure.cpuUsPerResponse).toBeGreaterThan(0);
      expect(row.notes.join("\n")).toMatch(/server CPU per response \(median\): \d+ µs vs \d+ µs/);
    }
  });

  it("when throughput and latency rows run, then they carry p50 and p99 latencies", () => {
    for (const row of results.rows.filter((r) => r.subject.unit === "req/s" || r.subject.unit === "ms")) {
      for (const figure of [row.subject, row.baseline]) {
        expect([isNumber(figure.p50Ms), isNumber(figure.p99Ms)]).toEqual([true, true]);
      }
    }
  });

  it("when the speech and generation rows run, then they compare the service with the engine alone, per run", () => {
    const speech = results.rows.filter((r) => r.group === "speech");
    expect(speech.map((r) => [r.name, r.subject.unit, r.baseline.unit])).toEqual([
      ["speech wav, 200 words, request → last byte", "ms", "ms"],
    ]);
    const generation = results.rows.filter((r) => r.group === "generation");
    expect(generation.map((r) => [r.subject.unit, r.baseline.unit])).toEqual([
      ["tok/s", "tok/s"],
      ["tok/s", "tok/s"],
    ]);
    for (const row of [...speech, ...generation])
      expect([row.subject.runs, row.baseline.runs]).toEqual([[expect.any(Number)], [expect.any(Number)]]);
  });

  it("when the inference rows run, then the burst had no failed attempt and the anchor's absence is noted", () => {
    const inference = results.rows.filter((r) => r.group === "inference");
    const failed = inference.find((r) => r.name.includes("failed attempts"));
    expect(failed).toMatchObject({ subject: { value: 0 }, pass: true });
    expect(failed!.baseline.value).toBeGreaterThan(0);
    for (const row of inference) expect(row.notes.join("\n")).toContain("llama-server rows skipped: --anchor none");
  });

  it("when it exits, then no process it started (Redis, gateway, workers, baselines, engines, autocannon) is left", () => {
    const listed = /stopped every process it started: (.*)/.exec(run.stderr)?.[1] ?? "";
    const started = listed.split(", ").map((entry) => ({ entry, pid: Number(entry.split(" ").pop()) }));
    expect(started.map((p) => p.entry.split(" ")[0])).toEqual(
      expect.arrayContaining([
        "redis-server",
        "gateway",
        "worker",
        "noop-worker",
        "autocannon",
        "espeak-direct",
        "llama-direct",
        "status-step-gateway-limiter",
      ]),
    );
    expect(started.filter((p) => isRunning(p.pid))).toEqual([]);
  });

  it("when it finishes, then the table on stdout has a line per row", () => {
    for (const row of results.rows) expect(run.stdout).toContain(row.name);
    expect(run.stdout).toMatch(/targets: \d+ passed, \d+ failed/);
  });
});
