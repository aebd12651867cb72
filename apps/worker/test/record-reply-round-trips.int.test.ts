import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { UsageBudgetLedger, utcDayOf } from "@chorus/platform/budgets";
import { createWorkerRedis, redisKeys, waitUntilReady, type RedisClient } from "@chorus/platform/redis";
import { StatusStore } from "@chorus/platform/scheduler";
import { UsageMeter } from "@chorus/platform/usage";
import { recordReply } from "../src/records/record-reply.js";
import { SAMPLE_COMPLETION } from "../../../test-support/fixtures.js";
import { testLogger } from "../../../test-support/logger.js";
import { deleteKeysWithPrefix, TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";

/**
 * Recording a reply settles its key's budget in the metering batch of the write that turns the record
 * final: settling adds no round trip of its own to the worker's path. Counted on the worker's real
 * connection: every pipeline sent, and its length.
 */
const prefix = uniquePrefix("record-round-trips");
const keys = redisKeys(prefix);
const connection = createWorkerRedis(TEST_REDIS);
const log = testLogger("worker");
const meter = new UsageMeter(connection, keys, log);
const budgets = new UsageBudgetLedger(connection, keys);
const statuses = new StatusStore(connection, keys, 3600, undefined, meter);
beforeAll(() => waitUntilReady(connection, 5000));
afterAll(async () => {
  connection.disconnect();
  await deleteKeysWithPrefix(TEST_REDIS, prefix);
});

/** The length of every pipeline `redis` sends while `run` runs. */
async function pipelinesSentDuring(redis: RedisClient, run: () => Promise<unknown>): Promise<number[]> {
  const sent: number[] = [];
  const original = redis.pipeline.bind(redis);
  redis.pipeline = (...args: Parameters<RedisClient["pipeline"]>) => {
    const batch = original(...args);
    const exec = batch.exec.bind(batch);
    batch.exec = (...execArgs: Parameters<typeof exec>) => {
      sent.push(batch.length);
      return exec(...execArgs);
    };
    return batch;
  };
  try {
    await run();
  } finally {
    redis.pipeline = original;
  }
  return sent;
}

/** A processing record of `keyId` holding 300 tokens of its daily budget. */
async function heldRequest(keyId: string, requestId: string) {
  const reservation = await budgets.reserve(keyId, requestId, { tokens: 300, audioMs: 0 }, { tokens_day: 1000 });
  if (!reservation?.held) throw new Error("the hold was refused");
  await statuses.create(requestId, keyId, "default");
  return { requestId, keyId, acceptedAt: Date.now(), budget: reservation.hold };
}

const used = SAMPLE_COMPLETION.tokens + SAMPLE_COMPLETION.promptTokens;

describe("recording a reply", () => {
  it("when the reply turns its record final, then the budget's settlement rides in the metering batch: one pipeline of two commands, and the hold is settled with what was used", async () => {
    const owner = await heldRequest("key_rides", "req-rides");
    let written = false;
    const sent = await pipelinesSentDuring(connection, async () => {
      written = await recordReply({ statuses, budgets }, owner, SAMPLE_COMPLETION, undefined, log);
    });
    expect(written).toBe(true);
    expect(sent).toEqual([2]);
    expect(await budgets.figures("key_rides", utcDayOf(Date.now()))).toMatchObject({ tokens: used, tokensHeld: 0 });
  });

  it("when the record was already final (a cancel won), then nothing is metered by this writer and the settlement is sent on its own, once", async () => {
    const owner = await heldRequest("key_alone", "req-alone");
    await statuses.fail("req-alone", "cancelled by the client", "cancelled");
    let written = true;
    const sent = await pipelinesSentDuring(connection, async () => {
      written = await recordReply({ statuses, budgets }, owner, SAMPLE_COMPLETION, undefined, log);
    });
    expect(written).toBe(false);
    expect(sent).toEqual([1]);
    expect(await budgets.figures("key_alone", utcDayOf(Date.now()))).toMatchObject({ tokens: used, tokensHeld: 0 });
  });
});
