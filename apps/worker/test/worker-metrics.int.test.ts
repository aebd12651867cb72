import { QUEUES } from "@chorus/contracts";
import { createMetrics, type WorkerMetrics } from "@chorus/platform/metrics";
import { createWorkerRedis, redisKeys, waitUntilReady, type RedisClient } from "@chorus/platform/redis";
import { Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { instrumentWorkers } from "../src/worker-metrics.js";

const prefix = uniquePrefix("worker-metrics");
const keys = redisKeys(prefix);

let connection: RedisClient;
let metrics: WorkerMetrics;
let text: Worker;
let speech: Worker;
const queues: Queue[] = [];

/** Stand-ins for the processors: each job's data says how it ends. */
function textProcessor(job: Job<{ kind: string; model: string }>): Promise<unknown> {
  switch (job.data.kind) {
    case "generated":
      return Promise.resolve({
        tokens: 40,
        processingTime: 2,
        model: job.data.model,
        promptTokens: 100,
        cachedTokens: 60,
      });
    case "cancelled":
      return Promise.reject(new UnrecoverableError("cancelled"));
    case "broken":
      return Promise.reject(new Error("engine hiccup"));
    default:
      return Promise.resolve(undefined); // today's processor: no figures
  }
}

async function speechProcessor(): Promise<unknown> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { format: "mp3", contentType: "audio/mpeg", byteLength: 1000, sampleRate: 24000, durationSeconds: 1.5 };
}

function settled(worker: Worker, count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const done = () => ++seen === count && resolve();
    worker.on("completed", done);
    worker.on("failed", done);
  });
}

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  connection = createWorkerRedis(TEST_REDIS_URL);
  await waitUntilReady(connection, 5000);
  metrics = createMetrics("worker");
  const options = (queue: string) => ({ connection, prefix: keys.bullPrefix(queue) });
  text = new Worker(QUEUES.text, textProcessor, options(QUEUES.text));
  speech = new Worker(QUEUES.speech, speechProcessor, options(QUEUES.speech));
  instrumentWorkers([text, speech], metrics);
  queues.push(new Queue(QUEUES.text, options(QUEUES.text)), new Queue(QUEUES.speech, options(QUEUES.speech)));
});
afterAll(async () => {
  await Promise.all([text.close(), speech.close(), ...queues.map((q) => q.close())]);
  connection.disconnect();
  await deleteKeysWithPrefix(TEST_REDIS_URL, prefix);
});

describe("instrumentWorkers", () => {
  it("when jobs complete, fail, are cancelled or retried, then jobs_total, generation and speech metrics show each", async () => {
    const [textQueue, speechQueue] = queues as [Queue, Queue];
    const textSettled = settled(text, 6); // 2 generated + 1 void + 1 cancelled + broken twice
    const speechSettled = settled(speech, 1);
    await textQueue.add("t", { kind: "generated", model: "Witch" });
    await textQueue.add("t", { kind: "generated", model: "Witch" });
    await textQueue.add("t", { kind: "void", model: "Mage" });
    await textQueue.add("t", { kind: "cancelled", model: "Mage" }, { attempts: 3 });
    await textQueue.add("t", { kind: "broken", model: "Mage" }, { attempts: 2 });
    await speechQueue.add("s", {});
    await Promise.all([textSettled, speechSettled]);

    const out = await metrics.render();
    expect(sample(out, `jobs_total{queue="${QUEUES.text}",outcome="completed"}`)).toBe(3);
    expect(sample(out, `jobs_total{queue="${QUEUES.text}",outcome="cancelled"}`)).toBe(1);
    expect(sample(out, `jobs_total{queue="${QUEUES.text}",outcome="retried"}`)).toBe(1);
    expect(sample(out, `jobs_total{queue="${QUEUES.text}",outcome="failed"}`)).toBe(1);
    expect(sample(out, `jobs_total{queue="${QUEUES.speech}",outcome="completed"}`)).toBe(1);

    expect(sample(out, 'generation_tokens_total{model="Witch"}')).toBe(80);
    expect(sample(out, 'generation_duration_seconds_sum{model="Witch"}')).toBe(4);
    expect(sample(out, 'generation_tokens_per_second_bucket{le="20",model="Witch"}')).toBe(2);
    expect(sample(out, 'generation_tokens_per_second_bucket{le="10",model="Witch"}')).toBe(0);
    expect(sample(out, 'generation_prompt_tokens_total{model="Witch"}')).toBe(200);
    expect(sample(out, 'generation_cached_prompt_tokens_total{model="Witch"}')).toBe(120);
    // A job that returned nothing is counted but adds no generation figures.
    expect(out).not.toContain('model="Mage"');

    expect(sample(out, 'speech_audio_seconds_total{format="mp3"}')).toBe(1.5);
    expect(sample(out, 'speech_synthesis_duration_seconds_count{format="mp3"}')).toBe(1);
    const synthesis = sample(out, 'speech_synthesis_duration_seconds_sum{format="mp3"}') ?? 0;
    expect(synthesis).toBeGreaterThanOrEqual(0.04);
    expect(synthesis).toBeLessThan(5);
  });
});
