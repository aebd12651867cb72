import { createLogger } from "@chorus/platform/logger";
import { cpuHasAmx, serverArgs, type LlamaServerSettings } from "./llama-server.process.js";

const SAPPHIRE_RAPIDS =
  "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu sse avx512f amx_bf16 amx_tile amx_int8 avx512_vnni\n";
const EPYC = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2 avx512f\n";

const settings = (cpu: boolean): LlamaServerSettings => ({
  binary: "llama-server",
  modelPath: "model.gguf",
  threads: 2,
  slots: 2,
  contextPerSlot: 2048,
  gpu: false,
  logger: createLogger({ level: "error", format: "json", service: "test" }),
  cpuHasAmx: cpu,
});

describe("llama-server's command line", () => {
  it("when /proc/cpuinfo lists amx_int8, then the CPU has AMX; without it (or in another field), it has not", () => {
    expect(cpuHasAmx(SAPPHIRE_RAPIDS)).toBe(true);
    expect(cpuHasAmx(EPYC)).toBe(false);
    expect(cpuHasAmx("model name\t: amx_int8 lookalike\nflags\t\t: fpu\n")).toBe(false);
    expect(cpuHasAmx("")).toBe(false);
  });

  it("when the CPU has AMX, then weights are not repacked (ggml's AMX buffer crashes llama-server); otherwise they are", () => {
    expect(serverArgs(settings(true), 8080, "/tmp/states")).toContain("--no-repack");
    expect(serverArgs(settings(false), 8080, "/tmp/states")).not.toContain("--no-repack");
  });

  it("when started, then each slot has its own cache, llama-server's host cache is off and states go to the worker's folder", () => {
    const args = serverArgs(settings(false), 8080, "/tmp/states");
    expect(args.join(" ")).toContain("-np 2 -c 4096 --no-kv-unified --host 127.0.0.1 --port 8080");
    expect(args.join(" ")).toContain("--cache-ram 0 --slot-save-path /tmp/states/");
  });
});
