import { describe, expect, it } from "@jest/globals";
import type { UsageOperation } from "@chorus/platform/api-keys";
import winston from "winston";
import Transport from "winston-transport";
import { RequestCounts } from "./request-counts.js";

type Added = [string, Partial<Record<UsageOperation, number>>, string];
const DAY = "2026-11-24";
const NEXT_DAY = "2026-11-25";

/** A logger that keeps its lines' messages. */
function notingLogger(): { logger: winston.Logger; messages: string[] } {
  const messages: string[] = [];
  const transport = new Transport();
  transport.log = (info: { message: string }, done: () => void) => {
    messages.push(info.message);
    done();
  };
  return { logger: winston.createLogger({ transports: [transport] }), messages };
}

/** A usage store that notes what it is given, refusing the first `failures` calls. */
function fakeUsage(failures = 0) {
  const added: Added[] = [];
  let refused = 0;
  return {
    added,
    countRequests: (keyId: string, counts: Partial<Record<UsageOperation, number>>, day = "") => {
      if (refused++ < failures) return Promise.reject(new Error("READONLY"));
      added.push([keyId, { ...counts }, day]);
      return Promise.resolve();
    },
  };
}

describe("RequestCounts", () => {
  it("when requests are counted, then a flush adds them once per key and day, summed by operation, and the next flush adds nothing more", async () => {
    const usage = fakeUsage();
    const counts = new RequestCounts(usage, 60_000, notingLogger().logger);
    for (let i = 0; i < 3; i++) counts.count("key_a", "status", 1, DAY);
    counts.count("key_a", "text", 1, DAY);
    counts.count("key_b", "tts", 1, DAY);
    counts.count("key_a", "status", 1, NEXT_DAY);
    await counts.flush();
    expect(usage.added).toEqual([
      ["key_a", { status: 3, text: 1 }, DAY],
      ["key_b", { tts: 1 }, DAY],
      ["key_a", { status: 1 }, NEXT_DAY],
    ]);
    await counts.flush();
    expect(usage.added).toHaveLength(3);
    await counts.close();
  });

  it("when Redis refuses a batch, then its counts are kept, on their own day, and added with newer ones by the next flush", async () => {
    const usage = fakeUsage(1);
    const { logger, messages } = notingLogger();
    const counts = new RequestCounts(usage, 60_000, logger);
    counts.count("key_a", "status", 1, DAY);
    await counts.flush();
    expect(usage.added).toEqual([]);
    expect(messages).toEqual(["could not count usage; kept for the next try"]);
    counts.count("key_a", "status", 1, DAY);
    await counts.flush();
    expect(usage.added).toEqual([["key_a", { status: 2 }, DAY]]);
    await counts.close();
  });

  it("when it is closed, then what was counted since the last flush is added", async () => {
    const usage = fakeUsage();
    const counts = new RequestCounts(usage, 60_000, notingLogger().logger);
    counts.count("key_a", "text", 1, DAY);
    await counts.close();
    expect(usage.added).toEqual([["key_a", { text: 1 }, DAY]]);
  });

  it("when Redis refuses the batch added on close, then the loss is logged with its size", async () => {
    const { logger, messages } = notingLogger();
    const counts = new RequestCounts(fakeUsage(1), 60_000, logger);
    counts.count("key_a", "text", 2, DAY);
    await counts.close();
    expect(messages).toEqual([
      "could not count usage; kept for the next try",
      "usage not counted: Redis refused it as the gateway stopped",
    ]);
  });

  it("when the interval passes, then the counts are added without anyone asking, on today's UTC day by default", async () => {
    const usage = fakeUsage();
    const counts = new RequestCounts(usage, 20, notingLogger().logger);
    counts.count("key_a", "status");
    for (let i = 0; i < 100 && usage.added.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(usage.added).toEqual([["key_a", { status: 1 }, new Date().toISOString().slice(0, 10)]]);
    await counts.close();
  });
});
