import { cpuMicrosPerResponse, readCpuSeconds } from "./cpu.js";

describe("readCpuSeconds", () => {
  it("when the process is this one and it has worked, then its CPU time grows", () => {
    const before = readCpuSeconds(process.pid);
    const until = Date.now() + 100;
    let spin = 0;
    while (Date.now() < until) spin++;
    const after = readCpuSeconds(process.pid);
    expect(spin).toBeGreaterThan(0);
    expect(before).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(before);
  });

  it("when there is no such process, then it is NaN rather than a made-up 0", () => {
    expect(readCpuSeconds(2 ** 30)).toBeNaN();
  });
});

describe("cpuMicrosPerResponse", () => {
  it("when there were responses, then it divides the CPU time among them", () => {
    expect(cpuMicrosPerResponse(1.5, 6000)).toBe(250);
  });

  it("when there were none, then it is NaN", () => {
    expect(cpuMicrosPerResponse(1, 0)).toBeNaN();
  });
});
