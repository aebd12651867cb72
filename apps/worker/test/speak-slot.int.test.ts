import { speakReplyJobId, type SpeechRequest, type StatusRecord } from "@chorus/contracts";
import { createTextQueue, createSpokenReplyQueue } from "@chorus/platform/queues";
import { createWorkerRedis, type RedisClient } from "@chorus/platform/redis";
import { StatusStore, type Completion } from "@chorus/platform/scheduler";
import request from "supertest";
import { EspeakSpeechEngine } from "../src/engines/tts/espeak.speech-engine.js";
import type { AudioPieceHandler, SpeechEngine } from "../src/engines/tts/speech-engine.js";
import type { LlmEngine } from "../src/engines/llm/llm-engine.js";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { TEST_REDIS, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { loadFixtureEngine, startTestWorker, type TestWorker } from "../../../test-support/worker.js";
import { finalRecord } from "../../../test-support/records.js";

/** A prompt the fixture model answers with words (a reply of only white space would have nothing to speak). */
const SAMPLING = { max_tokens: 40, temperature: 0.1, seed: 7 };

/**
 * eSpeak NG whose syntheses wait at a gate the test opens: a synthesis is under way (it holds its speech
 * slot) for as long as the test needs, whatever the machine's speed. Each synthesis is noted in `events`.
 */
class GatedSpeech implements SpeechEngine {
  readonly name: string;
  readonly voices: SpeechEngine["voices"];
  readonly formats: SpeechEngine["formats"];
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  private entered!: () => void;
  /** Resolves once a synthesis waits at the gate. */
  readonly speaking = new Promise<void>((resolve) => (this.entered = resolve));

  constructor(
    private readonly real: SpeechEngine,
    private readonly events: string[],
  ) {
    [this.name, this.voices, this.formats] = [real.name, real.voices, real.formats];
  }

  async synthesize(speech: SpeechRequest, signal: AbortSignal, onPiece?: AudioPieceHandler) {
    this.events.push("speaking");
    this.entered();
    await this.gate;
    return this.real.synthesize(speech, signal, onPiece);
  }

  release(): void {
    this.open();
  }

  close(): Promise<void> {
    return this.real.close();
  }
}

describeWithModel("speak: the reply waits for a speech slot, not a text slot", () => {
  let gw: TestGateway;
  let worker: TestWorker;
  let llm: LlmEngine;
  let espeak: EspeakSpeechEngine;
  let connection: RedisClient;
  /** Opened at the end whatever happened, so a failing test does not leave the worker unable to close. */
  const gates: GatedSpeech[] = [];
  beforeAll(async () => {
    gw = await startTestGateway(uniquePrefix("speak-slot"));
    llm = await loadFixtureEngine();
    espeak = new EspeakSpeechEngine({ concurrency: 1 });
    connection = createWorkerRedis(TEST_REDIS);
  }, 120_000);
  afterAll(async () => {
    for (const gate of gates) gate.release();
    await worker.close();
    await espeak.close();
    await llm.close();
    connection.disconnect();
    await gw.close();
  }, 60_000);

  /** The real worker, one text slot and one speech slot; `events` notes starts, syntheses and completed records. */
  async function startWorker(events: string[], speech: GatedSpeech): Promise<void> {
    gates.push(speech);
    const statuses = new (class extends StatusStore {
      override async markStarted(requestId: string, now?: number) {
        events.push(`started ${requestId}`);
        return super.markStarted(requestId, now);
      }
      override async complete(requestId: string, c: Completion) {
        const written = await super.complete(requestId, c);
        if (written) events.push(`completed ${requestId}`);
        return written;
      }
    })(connection, gw.deps.keys, 3600);
    worker = await startTestWorker(gw.prefix, llm, {
      concurrency: 1,
      statuses,
      speech: { speech, concurrency: 1, audioTtlSeconds: 60 },
    });
  }

  const submit = async (key: string, body: object): Promise<string> => {
    const res = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body);
    expect(res.status).toBe(200);
    return submittedId(res);
  };
  const status = async (key: string, id: string): Promise<StatusRecord> =>
    (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" })).body as StatusRecord;

  /** How many times each job was started by a worker (1: its first attempt did it all). */
  async function attemptsStarted(ids: string[]): Promise<{ text: number[]; spoken: number[] }> {
    const [text, spoken] = [
      createTextQueue(connection, gw.deps.keys),
      createSpokenReplyQueue(connection, gw.deps.keys),
    ];
    try {
      return {
        text: await Promise.all(ids.map(async (id) => (await text.getJob(id))?.attemptsStarted ?? -1)),
        spoken: await Promise.all(
          ids.map(async (id) => (await spoken.getJob(speakReplyJobId(id)))?.attemptsStarted ?? -1),
        ),
      };
    } finally {
      await Promise.all([text.close(), spoken.close()]);
    }
  }

  it("when a spoken reply is being synthesized, then another key's text request starts and ends on the freed text slot, and every spoken reply completes on its first attempt", async () => {
    const [speaker, other] = [await gw.createKey(), await gw.createKey()];
    const events: string[] = [];
    const speech = new GatedSpeech(espeak, events);
    await startWorker(events, speech);
    const spoken = [
      await submit(speaker, { ...defaultRequest("Once upon a time"), samplingParams: SAMPLING, speak: {} }),
      await submit(speaker, { ...defaultRequest("Tell me about a dog."), samplingParams: SAMPLING, speak: {} }),
    ];
    await speech.speaking; // the first reply holds the one speech slot, its synthesis under way
    const text = await submit(other, { ...defaultRequest(), samplingParams: SAMPLING });
    const textRecord = await finalRecord(gw.app, other, text, 60_000);
    expect(textRecord.status).toBe("completed");
    // With the one text slot, the other key's request started after both spoken requests' text, and was
    // recorded while their replies still waited to be spoken: neither record is final yet.
    // (The first reply's synthesis and the second's text start together, in either order.)
    expect(events[0]).toBe(`started ${spoken[0]}`);
    expect(new Set(events.slice(1, 3))).toEqual(new Set(["speaking", `started ${spoken[1]}`]));
    expect(events.slice(3)).toEqual([`started ${text}`, `completed ${text}`]);
    for (const id of spoken) expect((await status(speaker, id)).status).toBe("processing");

    speech.release();
    for (const id of spoken) {
      const record = await finalRecord(gw.app, speaker, id);
      expect(record).toMatchObject({ status: "completed", audioUrl: `/api/v2/status/${id}/audio` });
      expect(record.audioError).toBeUndefined();
      const audio = await request(gw.app).get(record.audioUrl!).auth(speaker, { type: "bearer" });
      expect(audio.status).toBe(200);
    }
    expect(events.filter((event) => event === "speaking")).toHaveLength(2); // each reply spoken once
    expect(await attemptsStarted(spoken)).toEqual({ text: [1, 1], spoken: [1, 1] });
  }, 180_000);

  it("when a request is cancelled while its reply waits to be spoken, then it ends cancelled and nothing is spoken for it", async () => {
    const key = await gw.createKey();
    const events: string[] = [];
    const speech = new GatedSpeech(espeak, events);
    await worker.close();
    await startWorker(events, speech);
    const first = await submit(key, { ...defaultRequest("Once upon a time"), samplingParams: SAMPLING, speak: {} });
    const second = await submit(key, {
      ...defaultRequest("Tell me about a dog."),
      samplingParams: SAMPLING,
      speak: {},
    });
    await speech.speaking;
    // The second's text is done once its text slot is free for others: its reply then waits for the speech slot.
    const waiting = await finalRecord(
      gw.app,
      key,
      await submit(key, { ...defaultRequest(), samplingParams: SAMPLING }),
    );
    expect(waiting.status).toBe("completed");
    const cancel = await request(gw.app).delete(`/api/v2/status/${second}`).auth(key, { type: "bearer" });
    expect(cancel.status).toBe(200);
    speech.release();
    expect(await finalRecord(gw.app, key, first)).toMatchObject({ status: "completed" });
    expect(await finalRecord(gw.app, key, second)).toMatchObject({ status: "error", errorCode: "cancelled" });
    expect(events.filter((event) => event === "speaking")).toHaveLength(1);
    expect(events).not.toContain(`completed ${second}`);
  }, 180_000);
});
