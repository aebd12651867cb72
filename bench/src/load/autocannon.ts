import { cpuMicrosPerResponse, readCpuSeconds } from "../metrics/cpu.js";
import { autocannonCli } from "../paths.js";
import { startNode } from "../stack/child-processes.js";

export interface LoadSpec {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** The process answering, whose CPU time per response is measured alongside. */
  serverPid?: number;
}

export interface LoadSettings {
  connections: number;
  durationS: number;
}

export interface LoadResult {
  /** Successful (2xx) responses per second. */
  rps: number;
  /** Latency of 2xx responses; autocannon records whole milliseconds. */
  p50Ms: number;
  p99Ms: number;
  ok: number;
  /** Non-2xx responses, socket errors and timeouts. */
  failed: number;
  durationS: number;
  /** CPU time of the answering process per response (2xx or not), in µs; NaN when unmeasured. */
  serverCpuUs: number;
}

interface AutocannonJson {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  "2xx": number;
  latency: { p50: number; p99: number };
}

function cliArgs(spec: LoadSpec, settings: LoadSettings): string[] {
  const args = ["--json", "-c", String(settings.connections), "-d", String(settings.durationS), "-m", spec.method];
  for (const [name, value] of Object.entries(spec.headers)) args.push("-H", `${name}=${value}`);
  if (spec.body !== undefined) args.push("-b", spec.body);
  return [...args, spec.url];
}

function toResult(json: AutocannonJson, serverCpuSeconds: number): LoadResult {
  const ok = json["2xx"];
  const failed = json.non2xx + json.errors + json.timeouts;
  return {
    rps: json.duration > 0 ? ok / json.duration : 0,
    p50Ms: json.latency.p50,
    p99Ms: json.latency.p99,
    ok,
    failed,
    durationS: json.duration,
    serverCpuUs: cpuMicrosPerResponse(serverCpuSeconds, ok + json.non2xx),
  };
}

/**
 * One load run by autocannon in its own process (so the load generator never shares an event loop
 * with anything measured); it prints a single JSON summary, parsed here.
 */
export async function runLoad(spec: LoadSpec, settings: LoadSettings): Promise<LoadResult> {
  const cpuBefore = spec.serverPid === undefined ? Number.NaN : readCpuSeconds(spec.serverPid);
  const child = startNode("autocannon", autocannonCli(), { args: cliArgs(spec, settings), captureStdout: true });
  let stdout = "";
  child.process.stdout?.setEncoding("utf8");
  child.process.stdout?.on("data", (chunk: string) => (stdout += chunk));
  const watchdog = setTimeout(() => void child.stop(1000), (settings.durationS + 30) * 1000);
  const code = await child.exited;
  clearTimeout(watchdog);
  const cpuAfter = spec.serverPid === undefined ? Number.NaN : readCpuSeconds(spec.serverPid);
  const line = stdout.trim().split("\n").pop() ?? "";
  if (code !== 0 || !line.startsWith("{")) {
    throw new Error(`autocannon failed (exit ${String(code)}) against ${spec.url}:\n${child.output() || stdout}`);
  }
  return toResult(JSON.parse(line) as AutocannonJson, cpuAfter - cpuBefore);
}
