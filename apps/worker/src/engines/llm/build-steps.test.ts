import { describe, expect, it } from "@jest/globals";
import { buildProgressOf, progressLog } from "./build-steps.js";

describe("buildProgressOf", () => {
  it("when a line starts with Ninja's or Make's progress, then that is how far the build is", () => {
    expect(buildProgressOf("[12/153] Building CXX object common/CMakeFiles/llama-common.dir/log.cpp.o")).toEqual({
      done: 12,
      total: 153,
    });
    expect(buildProgressOf("[ 45%] Building CXX object src/CMakeFiles/llama.dir/llama.cpp.o")).toEqual({
      done: 45,
      total: 100,
      percent: true,
    });
  });

  it("when a line is anything else, then it says nothing", () => {
    expect(buildProgressOf("-- Configuring done")).toBeNull();
    expect(buildProgressOf("warning: [12/153] not at the start")).toBeNull();
  });
});

describe("progressLog", () => {
  it("when steps arrive, then one line an interval says how far and how long is left at the pace so far", () => {
    let now = 0;
    const lines: string[] = [];
    const report = progressLog(
      "llama-server",
      (line) => lines.push(line),
      30_000,
      () => now,
    );
    now = 10_000;
    report({ done: 10, total: 100 }); // within the first interval: quiet
    now = 60_000;
    report({ done: 20, total: 100 }); // 3 s a step: 80 steps left, 4 min
    now = 70_000;
    report({ done: 25, total: 100 }); // within the next interval: quiet
    now = 95_000;
    report({ done: 95, total: 100, percent: true });
    expect(lines).toEqual(["llama-server: step 20 of 100, about 4 min left", "llama-server: 95%, about a minute left"]);
  });
});
