import { afterEach, expect, it } from "@jest/globals";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QUEUES, type StatusRecord } from "@chorus/contracts";
import type { RunningChild } from "@chorus/local-runtime";
import { createWorkerRedis } from "@chorus/platform/redis";
import OpenAI from "openai";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { startApp, waitForOutput } from "../../../test-support/processes.js";
import { finalRecord } from "../../../test-support/records.js";
import { TEST_REDIS, TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";

/** The non-chat build of the fixture's weights: the same request makes another prompt, so another reply. */
const OTHER_MODEL = new URL("../../../fixtures/models/stories260K.gguf", import.meta.url).pathname;

interface Outcome {
  /** What the client put together from the stream's deltas. */
  assembled: string;
  /** What the SDK raised, if it did. */
  raised: Error | null;
  record: StatusRecord;
  /** Attempts BullMQ started on the job: 2 when the kill hit it mid-generation. */
  started: number;
}

/**
 * A streamed completion whose worker is killed (-9) once the client has its first words, and run
 * again on a live worker: the client must end up with the record's reply, or with an error the SDK
 * raises, never with two replies spliced into one.
 */
describeWithModel("a streamed completion whose worker dies mid-stream (real worker processes)", () => {
  let gw: TestGateway | undefined;
  let server: Server | undefined;
  const workers: RunningChild[] = [];

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.kill("SIGKILL")));
    if (server) await new Promise((resolve) => server?.close(resolve));
    await gw?.close();
  }, 60_000);

  async function killMidStream(rescuerModel?: string): Promise<Outcome> {
    const prefix = uniquePrefix("stream-take-over");
    gw = await startTestGateway(prefix);
    server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server?.once("listening", resolve));
    const key = await gw.createKey();
    const openai = new OpenAI({
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      apiKey: key,
      maxRetries: 0,
    });
    // The shortest lock allowed: the dead worker's job is taken over within about 6 s.
    const env = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, WORKER_CONCURRENCY: "1", JOB_LOCK_MS: "5000" };
    const victim = startApp("worker", env);
    workers.push(victim);
    await waitForOutput(victim, /worker ready/);

    const stream = await openai.chat.completions.create({
      model: "default",
      messages: [{ role: "user", content: "Tell me a long story about a cat and a dog." }],
      max_tokens: 400,
      temperature: 1,
      stream: true,
    });
    let assembled = "";
    let raised: Error | null = null;
    let id = "";
    try {
      for await (const chunk of stream) {
        id ||= chunk.id.replace(/^chatcmpl-/, "");
        const content = chunk.choices[0]?.delta.content ?? "";
        // Frozen at once, then killed: it cannot finish the job between the first words and the kill.
        if (content && !assembled) {
          victim.process.kill("SIGSTOP");
          victim.process.kill("SIGKILL");
          workers.push(startApp("worker", rescuerModel ? { ...env, LLM_MODEL: rescuerModel } : env));
        }
        assembled += content;
      }
    } catch (error) {
      raised = error as Error;
    }
    const record = await finalRecord(gw.app, key, id, 120_000);
    const connection = createWorkerRedis(TEST_REDIS);
    const started = Number(await connection.hget(gw.deps.keys.bullJob(QUEUES.text, id), "ats"));
    connection.disconnect();
    return { assembled, raised, record, started };
  }

  it("when a live worker runs it again, then what the client assembled is the record's reply, or the SDK raised", async () => {
    const { assembled, raised, record, started } = await killMidStream();
    expect(started).toBe(2);
    expect(record.status).toBe("completed");
    if (raised) expect(raised.message).toMatch(/reply changed/);
    else expect(assembled).toBe(record.reply);
    expect((record.reply ?? "").startsWith(assembled) || raised !== null).toBe(true);
  }, 180_000);

  it("when the new attempt writes a different reply, then the SDK raises instead of splicing the two", async () => {
    const { assembled, raised, record, started } = await killMidStream(OTHER_MODEL);
    expect(started).toBe(2);
    expect(record.status).toBe("completed");
    expect(raised).toBeInstanceOf(OpenAI.APIError);
    expect(raised?.message).toMatch(/reply changed after part of it was streamed/);
    expect(record.reply?.startsWith(assembled)).toBe(false);
  }, 180_000);
});
