import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKey, cpuIdentity, missingBuildTools } from "./llama-build.js";

describe("llama-build", () => {
  it("when /proc/cpuinfo is read, then the CPU's model and flags identify it (what a native build depends on)", () => {
    const cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2\n";
    expect(cpuIdentity(cpuinfo)).toBe("AMD EPYC|fpu sse avx2");
    expect(cpuIdentity(cpuinfo.replace(/avx2/g, "avx512f"))).not.toBe(cpuIdentity(cpuinfo));
  });

  it("when the key is made, then it names node-llama-cpp's pinned version and a CPU hash", () => {
    expect(buildKey()).toMatch(/^3\.22\.1-[0-9a-f]{12}$/);
  });

  describe("missingBuildTools", () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "chorus-tools-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const tool = (name: string) => {
      writeFileSync(join(dir, name), "#!/bin/sh\n");
      chmodSync(join(dir, name), 0o755);
    };

    it("when neither cmake nor a compiler is on PATH, then both are named", () => {
      expect(missingBuildTools({ PATH: dir })).toEqual(["cmake", "a C++ compiler (g++)"]);
    });

    it("when cmake and g++ are on PATH, then nothing is missing", () => {
      tool("cmake");
      tool("g++");
      expect(missingBuildTools({ PATH: dir })).toEqual([]);
    });

    it("when only clang++ is there, then only cmake is missing", () => {
      tool("clang++");
      expect(missingBuildTools({ PATH: dir })).toEqual(["cmake"]);
    });
  });
});
