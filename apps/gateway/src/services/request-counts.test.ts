import { describe, expect, it } from "@jest/globals";
import type { UsageOperation } from "@chorus/platform";
import winston from "winston";
import { RequestCounts } from "./request-counts.js";

type Added = [string, Partial<Record<UsageOperation, number>>];
const silent = winston.createLogger({ silent: true });

/** A usage store that notes what it is given, refusing the first `failures` calls. */
function fakeUsage(failures = 0) {
  const added: Added[] = [];
  let refused = 0;
  return {
    added,
    countRequests: async (keyId: string, counts: Partial<Record<UsageOperation, number>>) => {
      if (refused++ < failures) throw new Error("READONLY");
      added.push([keyId, { ...counts }]);
    },
  };
}

describe("RequestCounts", () => {
  it("when requests are counted, then a flush adds them once per key, summed by operation, and the next flush adds nothing more", async () => {
    const usage = fakeUsage();
    const counts = new RequestCounts(usage, 60_000, silent);
    for (let i = 0; i < 3; i++) counts.count("key_a", "status");
    counts.count("key_a", "text");
    counts.count("key_b", "tts");
    await counts.flush();
    expect(usage.added).toEqual([
      ["key_a", { status: 3, text: 1 }],
      ["key_b", { tts: 1 }],
    ]);
    await counts.flush();
    expect(usage.added).toHaveLength(2);
    await counts.close();
  });

  it("when Redis refuses a batch, then its counts are kept and added, with newer ones, by the next flush", async () => {
    const usage = fakeUsage(1);
    const counts = new RequestCounts(usage, 60_000, silent);
    counts.count("key_a", "status");
    await counts.flush();
    expect(usage.added).toEqual([]);
    counts.count("key_a", "status");
    await counts.flush();
    expect(usage.added).toEqual([["key_a", { status: 2 }]]);
    await counts.close();
  });

  it("when it is closed, then what was counted since the last flush is added", async () => {
    const usage = fakeUsage();
    const counts = new RequestCounts(usage, 60_000, silent);
    counts.count("key_a", "text");
    await counts.close();
    expect(usage.added).toEqual([["key_a", { text: 1 }]]);
  });

  it("when the interval passes, then the counts are added without anyone asking", async () => {
    const usage = fakeUsage();
    const counts = new RequestCounts(usage, 20, silent);
    counts.count("key_a", "status");
    for (let i = 0; i < 100 && usage.added.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(usage.added).toEqual([["key_a", { status: 1 }]]);
    await counts.close();
  });
});
