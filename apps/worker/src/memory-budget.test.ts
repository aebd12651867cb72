import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { defaultPromptCacheMiB, describeMemoryBudget, memoryBudget } from "./memory-budget.js";

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const HOST = 23 * GiB;
/** What cgroup v1 writes for "no limit" (PAGE_COUNTER_MAX pages of 4 KiB). */
const V1_UNLIMITED = "9223372036854771712";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chorus-cgroup-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes files under the fake /sys/fs/cgroup and /proc/self/cgroup, then reads the budget from them. */
function budgetWith(files: Record<string, string>, selfCgroup: string) {
  for (const [path, text] of Object.entries({ ...files, "proc/self/cgroup": selfCgroup })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), `${text}\n`);
  }
  return memoryBudget({
    cgroupRoot: join(dir, "sys/fs/cgroup"),
    selfCgroup: join(dir, "proc/self/cgroup"),
    hostBytes: HOST,
  });
}

describe("the worker's memory budget", () => {
  it("when cgroup v2 gives the container its own namespace with memory.max, then that limit is the budget", () => {
    expect(budgetWith({ "sys/fs/cgroup/memory.max": String(2 * GiB) }, "0::/")).toEqual({
      bytes: 2 * GiB,
      source: "cgroup v2",
    });
  });

  it("when cgroup v2 says max, then the host's memory is the budget", () => {
    expect(budgetWith({ "sys/fs/cgroup/memory.max": "max" }, "0::/")).toEqual({ bytes: HOST, source: "host" });
  });

  it("when the v2 path from /proc/self/cgroup has a limit above it (a pod's), then the lowest limit on the way up counts", () => {
    const files = {
      "sys/fs/cgroup/kubepods/pod1/memory.max": String(1536 * MiB),
      "sys/fs/cgroup/kubepods/pod1/worker/memory.max": "max",
    };
    expect(budgetWith(files, "0::/kubepods/pod1/worker")).toEqual({ bytes: 1536 * MiB, source: "cgroup v2" });
  });

  it("when cgroup v1's memory controller limits the container, then memory.limit_in_bytes is the budget, though /proc names the host's path", () => {
    // Docker mounts the container's own memory cgroup as the hierarchy's root; /proc still says /docker/<id>.
    const files = { "sys/fs/cgroup/memory/memory.limit_in_bytes": String(2 * GiB) };
    expect(budgetWith(files, "12:memory:/docker/0123abcd\n11:cpu,cpuacct:/docker/0123abcd\n0::/")).toEqual({
      bytes: 2 * GiB,
      source: "cgroup v1",
    });
  });

  it("when cgroup v1 writes its no-limit number, then the host's memory is the budget", () => {
    const files = { "sys/fs/cgroup/memory/memory.limit_in_bytes": V1_UNLIMITED };
    expect(budgetWith(files, "4:memory:/\n0::/")).toEqual({ bytes: HOST, source: "host" });
  });

  it("when there is no cgroup file at all (not Linux, or hidden), then the host's memory is the budget", () => {
    expect(budgetWith({}, "")).toEqual({ bytes: HOST, source: "host" });
  });

  it("when describing it for the start-up line, then in MiB with where it came from", () => {
    expect(describeMemoryBudget({ bytes: 2 * GiB, source: "cgroup v2" })).toBe("2048 MiB (cgroup v2 limit)");
    expect(describeMemoryBudget({ bytes: HOST, source: "host" })).toBe("23552 MiB (this machine's memory)");
  });
});

describe("llama-server's prompt cache (LLM_CACHE_RAM_MB unset)", () => {
  it("when the budget is large, then llama-server keeps its own 8192 MiB; when small, a quarter of it", () => {
    expect(defaultPromptCacheMiB(64 * GiB)).toBe(8192);
    expect(defaultPromptCacheMiB(4 * GiB)).toBe(1024);
  });

  it("when a container is limited to 2 GiB on a 23 GiB host, then the cache follows the container, not the host", () => {
    const budget = budgetWith({ "sys/fs/cgroup/memory.max": String(2 * GiB) }, "0::/");
    expect(defaultPromptCacheMiB(budget.bytes)).toBe(512);
    expect(defaultPromptCacheMiB(HOST)).toBe(5888);
  });
});
