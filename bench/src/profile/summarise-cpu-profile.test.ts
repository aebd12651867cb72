import { byOrigin, selfTimes, type CpuProfile } from "./summarise-cpu-profile.js";

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

// root -> handler (gateway) -> write (native); root -> (idle)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)", ""), children: [2, 4] },
    { id: 2, callFrame: frame("handler", "file:///repo/apps/gateway/dist/routes/x.js"), children: [3] },
    { id: 3, callFrame: frame("writeUtf8String", ""), children: [] },
    { id: 4, callFrame: frame("(idle)", ""), children: [] },
  ],
  samples: [2, 3, 3, 4],
  timeDeltas: [1000, 2000, 3000, 4000],
};

describe("selfTimes", () => {
  it("when samples land on functions, then each gets its own time, largest first", () => {
    expect(selfTimes(profile).map((t) => [t.name, t.ms, t.percent])).toEqual([
      ["writeUtf8String", 5, 50],
      ["(idle)", 4, 40],
      ["handler", 1, 10],
    ]);
  });
});

describe("byOrigin", () => {
  it("when native code runs under an app frame, then its time counts for that app file", () => {
    expect(byOrigin(profile).map((g) => [g.group, g.ms])).toEqual([
      ["apps/gateway/dist/routes/x.js", 6],
      ["(idle)", 4],
    ]);
  });
});
