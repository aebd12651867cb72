import type { StatusRecord } from "@chorus/contracts";
import request from "supertest";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "../src/engines/llm/llm-engine.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { waitFor } from "../../../test-support/wait-for.js";

/**
 * A test double of a text engine that, like an upstream server told only some stop sequences, writes
 * past the client's: it reports the reply so far ending in the start of one, waits until the test
 * lets it go, then returns text that holds it whole.
 */
class RunsPastStops implements LlmEngine {
  readonly name = "runs past stop sequences (test double)";
  readonly contextTokens = 4096;
  readonly inputs: GenerationInput[] = [];
  private release: () => void = () => undefined;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  countPromptTokens(turns: ChatTurn[]): Promise<number> {
    return Promise.resolve(turns.reduce((sum, turn) => sum + turn.content.length, 0));
  }

  async generate(input: GenerationInput): Promise<GenerationResult> {
    this.inputs.push(input);
    input.onProgress({ tokens: 5, text: "Once upon a time THE E" });
    await this.released;
    return {
      text: "Once upon a time THE END, and then more.",
      finishReason: "length",
      tokens: 9,
      promptTokens: 20,
      cachedTokens: 0,
    };
  }

  finish(): void {
    this.release();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The client's `stop` (from /v1/chat/completions) through the gateway, the queue and the worker's processor. */
describe("a client's stop sequences in the worker", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let engine: RunsPastStops;

  beforeAll(async () => {
    const prefix = uniquePrefix("client-stop");
    gw = await startTestGateway(prefix);
    engine = new RunsPastStops();
    worker = await startTestWorker(prefix, engine);
  });
  afterAll(async () => {
    engine.finish();
    await worker.close();
    await gw.close();
  });

  it("when a completion asks for stop, then the engine is told, the reply so far never shows a sequence's start, and the reply ends before it", async () => {
    const key = await gw.createKey();
    const answer = request(gw.app)
      .post("/v1/chat/completions")
      .auth(key, { type: "bearer" })
      .send({ model: "default", messages: [{ role: "user", content: "A story?" }], stop: "THE END" })
      .then((res) => res);
    await waitFor("the engine to report the reply so far", () => engine.inputs.length > 0, { intervalMs: 10 });
    expect(engine.inputs[0]?.stop).toEqual(["THE END"]);
    const listed = await request(gw.app).get("/api/v2/requests").auth(key, { type: "bearer" });
    const id = (listed.body as { data: Array<{ id: string }> }).data[0]?.id ?? "";
    const status = () =>
      request(gw.app)
        .get(`/api/v2/status/${id}`)
        .auth(key, { type: "bearer" })
        .then((res) => res.body as StatusRecord);
    await waitFor("the reply so far in the record", async () => (await status()).partialReply !== undefined, {
      intervalMs: 10,
    });
    expect((await status()).partialReply).toBe("Once upon a time");
    engine.finish();
    const res = await answer;
    expect(res.status).toBe(200);
    const completion = res.body as { choices: Array<{ message: { content: string }; finish_reason: string }> };
    expect(completion.choices[0]?.message.content).toBe("Once upon a time");
    expect((await status()).reply).toBe("Once upon a time");
  });
});
