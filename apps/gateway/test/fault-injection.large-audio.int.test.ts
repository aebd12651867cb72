import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QUEUES, type StatusRecord } from "@chorus/contracts";
import { UsageBudgetLedger } from "@chorus/platform/budgets";
import { createWorkerRedis, redisKeys, type RedisClient } from "@chorus/platform/redis";
import { UsageMeter } from "@chorus/platform/usage";
import { Queue, Worker } from "bullmq";
import request from "supertest";
import { startPrivateRedis, type PrivateRedis } from "@chorus/local-runtime";
import { submittedId } from "../../../test-support/response-body.js";
import { EspeakSpeechEngine, synthesizeSpeechProcessor } from "../../../test-support/worker.js";
import { defaultRequest } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { testLogger } from "../../../test-support/logger.js";
import { startThrottledProxy, type ThrottledProxy } from "../../../test-support/throttled-proxy.js";

/**
 * Fault injection for large audio: the gateway reaches a private Redis over a
 * slow link (8 MiB/s per connection), so ~37 MB of WAV takes seconds to read. The worker writes
 * directly. Assertions are about what arrives and what is answered, never how fast.
 */
const PREFIX = "large-audio";
const SENTENCE = "The witch stirred her cauldron slowly, and green smoke curled up toward the crooked beams. ";
/** The longest text at the slowest speed, as WAV: ~37 MB. */
const LONGEST = {
  text: SENTENCE.repeat(Math.ceil(4096 / SENTENCE.length)).slice(0, 4096),
  speed: 0.25,
  format: "wav",
  voice: "Witch",
};

let redis: PrivateRedis;
let proxy: ThrottledProxy;
let gw: TestGateway;
let server: Server;
let key: string;
let workerConnection: RedisClient;
let speech: EspeakSpeechEngine;
let speechWorker: Worker;
let speechQueue: Queue;
beforeAll(async () => {
  redis = await startPrivateRedis();
  proxy = await startThrottledProxy(redis.url, 8 * 1024 * 1024);
  gw = await startTestGateway(PREFIX, {}, proxy.url);
  server = createServer(gw.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  key = await gw.createKey({ limits: { tts: 100, text: 100, status: 1000 } });
  workerConnection = createWorkerRedis(redis.url);
  const keys = redisKeys(PREFIX);
  speech = new EspeakSpeechEngine({ concurrency: 1 });
  const processor = synthesizeSpeechProcessor({
    speech,
    connection: workerConnection,
    keys,
    logger: testLogger("worker"),
    audioTtlSeconds: 300,
    meter: new UsageMeter(workerConnection, keys, testLogger("usage")),
    budgets: new UsageBudgetLedger(workerConnection, keys),
  });
  speechWorker = new Worker(QUEUES.speech, processor, {
    connection: workerConnection,
    prefix: keys.bullPrefix(QUEUES.speech),
  });
  speechQueue = new Queue(QUEUES.speech, { connection: workerConnection, prefix: keys.bullPrefix(QUEUES.speech) });
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await speechWorker.close();
  await speechQueue.close();
  await speech.close();
  await gw.close({ keepKeys: true }); // the private Redis goes with everything in it
  workerConnection.disconnect();
  await proxy.close();
  await redis.stop();
}, 60_000);

/** A speech request over a real socket, so the test can read the body as it comes or break it off. */
function postSpeech(body: object, idempotencyKey?: string) {
  const payload = JSON.stringify(body);
  const { port } = server.address() as AddressInfo;
  // Whole (the audio read back from Redis a piece at a time, with Content-Length): what this suite loads.
  const headers: Record<string, string | number> = {
    Authorization: `Bearer ${key}`,
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(payload),
    Prefer: "stream=false",
  };
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
  const req = httpRequest({ host: "127.0.0.1", port, path: "/api/tts", method: "POST", headers });
  const response = new Promise<IncomingMessage>((resolve, reject) => req.on("response", resolve).on("error", reject));
  req.end(payload);
  return { req, response };
}

function readAll(res: IncomingMessage): { whole: Promise<Buffer>; ended: () => boolean } {
  const chunks: Buffer[] = [];
  let ended = false;
  const whole = new Promise<Buffer>((resolve, reject) => {
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("end", () => {
      ended = true;
      resolve(Buffer.concat(chunks));
    });
    res.on("error", reject);
  });
  return { whole, ended: () => ended };
}

/** A well-formed WAV of exactly `length` bytes: RIFF header whose sizes agree with it. */
function expectWholeWav(audio: Buffer, length: number): void {
  expect(audio.length).toBe(length);
  expect(audio.subarray(0, 4).toString("latin1")).toBe("RIFF");
  expect(audio.readUInt32LE(4)).toBe(length - 8);
}

describe("large audio over a slow link to Redis", () => {
  it("when ~37 MB of audio streams to a client, then a status poll is answered during the transfer and the audio arrives whole", async () => {
    const textId = submittedId(
      await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest()),
    );
    const res = await postSpeech(LONGEST).response;
    expect(res.statusCode).toBe(200);
    const length = Number(res.headers["content-length"]);
    expect(length).toBeGreaterThan(30_000_000);
    const body = readAll(res);

    const poll = await request(gw.app).get(`/api/v2/status/${textId}`).auth(key, { type: "bearer" });
    expect(poll.status).toBe(200);
    expect((poll.body as StatusRecord).status).toBe("processing");
    expect(body.ended()).toBe(false); // the poll was answered while the audio was still on its way

    expectWholeWav(await body.whole, length);
  }, 120_000);

  it("when the client breaks off a delivery sent with an Idempotency-Key, then its retry gets the whole audio, synthesized once", async () => {
    const synthesizedBefore = (await speechQueue.getJobCounts("completed")).completed ?? 0;
    const first = postSpeech(LONGEST, "longest-once");
    const res = await first.response;
    expect(res.statusCode).toBe(200);
    const length = Number(res.headers["content-length"]);
    const head = await new Promise<Buffer>((resolve) => res.once("data", resolve));
    first.req.destroy(); // the client goes away mid-transfer

    const retry = await postSpeech(LONGEST, "longest-once").response;
    expect(retry.statusCode).toBe(200);
    const audio = await readAll(retry).whole;
    expectWholeWav(audio, length);
    expect(audio.subarray(0, head.length).equals(head)).toBe(true);
    expect((await speechQueue.getJobCounts("completed")).completed).toBe(synthesizedBefore + 1);
  }, 120_000);
});
