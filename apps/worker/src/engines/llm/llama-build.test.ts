import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildKey, cpuIdentity, missingBuildTools } from "./llama-build.js";

describe("llama-build", () => {
  it("when /proc/cpuinfo is read, then the CPU's model and flags identify it (what a native build depends on)", () => {
    const cpuinfo =
      "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2\n";
    expect(cpuIdentity(cpuinfo)).toBe(`${process.arch}|AMD EPYC|fpu sse avx2|||`);
    expect(cpuIdentity(cpuinfo.replace(/avx2/g, "avx512f"))).not.toBe(cpuIdentity(cpuinfo));
  });

  it("when the CPU is ARM, then its implementer, part and features identify it", () => {
    const arm = (part: string) =>
      `processor\t: 0\nFeatures\t: fp asimd sve\nCPU implementer\t: 0x41\nCPU part\t: ${part}\n`;
    expect(cpuIdentity(arm("0xd0c"))).toContain("|0x41|0xd0c|fp asimd sve");
    expect(cpuIdentity(arm("0xd40"))).not.toBe(cpuIdentity(arm("0xd0c")));
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

    it("when neither cmake, git nor a compiler is on PATH, then all are named", () => {
      expect(missingBuildTools({ PATH: dir })).toEqual(["cmake", "git", "a C++ compiler (g++)"]);
    });

    it("when cmake, git and g++ are on PATH, then nothing is missing", () => {
      ["cmake", "git", "g++"].forEach(tool);
      expect(missingBuildTools({ PATH: dir })).toEqual([]);
    });

    it("when only clang++ and git are there, then only cmake is missing", () => {
      ["clang++", "git"].forEach(tool);
      expect(missingBuildTools({ PATH: dir })).toEqual(["cmake"]);
    });
  });
});
