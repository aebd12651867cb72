import { request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AUDIO_FORMATS, QUEUES, type AudioFormat } from "@chorus/contracts";
import { ApiKeyUsage } from "@chorus/platform/api-keys";
import { Queue } from "bullmq";
import { measureAudio } from "../src/engines/tts/measure-audio.test-helpers.js";
import type { SpeechEngine, SynthesizedAudio } from "../src/engines/tts/speech-engine.js";
import { ascii, inspectFlac, inspectWav, pcmFromLittleEndian, rms } from "../../../test-support/audio/audio-inspect.js";
import { inspectMp3 } from "../../../test-support/audio/mp3-inspect.js";
import { parseOggPages } from "../../../test-support/audio/ogg-opus-inspect.js";
import { describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway } from "../../../test-support/gateway.js";
import { startTestServiceWithSpeech, type TestService } from "../../../test-support/service.js";
import { waitFor } from "../../../test-support/wait-for.js";

// Eight sentences, ~600 characters: streamed, eSpeak speaks them in two chunks (at most 160, the rest).
const TEXT = [
  "The witch stirred her cauldron slowly.",
  "Green smoke curled up toward the crooked beams, and the cat watched from the windowsill.",
  "Outside, the wind was rising over the hills, bending the pines and rattling the shutters.",
  "She hummed an old tune her grandmother had taught her, long before the war.",
  "A raven landed on the sill and tapped twice on the glass.",
  "She let it in, and it shook the rain from its feathers onto the warm stones of the hearth.",
  "Then it spoke, in a voice like gravel, of a traveller on the road who would arrive by morning.",
  "The witch smiled, for she had been expecting him for a very long time.",
].join(" ");

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}
function deferred(): Deferred {
  const handle = {} as Deferred;
  handle.promise = new Promise<void>((resolve, reject) => Object.assign(handle, { resolve, reject }));
  return handle;
}

/**
 * The real eSpeak NG engine, with a hand on what it hands over: while `held` is set, the second
 * piece of a streamed synthesis waits (before it reaches Redis) until the test resolves or rejects
 * it, so the test sees the first piece arrive while the job is certainly not finished, and can make
 * the synthesis fail right after its first piece (as a Redis write that fails would).
 */
function holdingSecondPiece(engine: SpeechEngine, control: { held: Deferred | null }): SpeechEngine {
  return {
    name: engine.name,
    voices: engine.voices,
    formats: engine.formats,
    close: () => engine.close(),
    synthesize: (request, signal, onPiece) => {
      const hold = control.held;
      if (!onPiece || !hold) return engine.synthesize(request, signal, onPiece);
      let pieces = 0;
      return engine.synthesize(request, signal, async (piece, info) => {
        if (++pieces === 2) await hold.promise;
        await onPiece(piece, info);
      });
    },
  };
}

/** A raw HTTP answer, read as it comes: what arrived so far, and how it ended. */
interface Answer {
  res: IncomingMessage;
  bytes(): Buffer;
  /** Resolves once at least `count` bytes have arrived. */
  atLeast(count: number): Promise<void>;
  /** `complete`: the body ended with chunked encoding's last chunk (or Content-Length was met). */
  ended: Promise<{ complete: boolean; trailers: NodeJS.Dict<string> }>;
  destroy(): void;
}

describeWithModel("streamed speech: audio sent as it is synthesized (eSpeak NG, real worker, real Redis)", () => {
  const control: { held: Deferred | null } = { held: null };
  let service: TestService;
  let server: Server;
  let key: string;
  let keyId: string;
  let queue: Queue;
  beforeAll(async () => {
    service = await startTestServiceWithSpeech("streamed-speech", {}, 2, (engine) =>
      holdingSecondPiece(engine, control),
    );
    const created = await service.gw.deps.apiKeys.create("streamed", ["*"], { tts: 1000 });
    key = created.secret;
    keyId = created.record.id;
    queue = new Queue(QUEUES.speech, {
      connection: service.gw.deps.redis,
      prefix: service.gw.deps.keys.bullPrefix(QUEUES.speech),
    });
    server = service.gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
  }, 120_000);
  afterAll(async () => {
    control.held?.resolve();
    await new Promise((resolve) => server.close(resolve));
    await queue.close();
    await service.close();
  }, 60_000);
  afterEach(() => {
    control.held?.resolve();
    control.held = null;
  });

  function speak(body: object, headers: Record<string, string> = {}, to: Server = server): Promise<Answer> {
    const payload = JSON.stringify(body);
    const { port } = to.address() as AddressInfo;
    const all = {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
      "Content-Length": String(Buffer.byteLength(payload)),
      ...headers,
    };
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, path: "/api/audio/full", method: "POST", headers: all },
        (res) => {
          const chunks: Buffer[] = [];
          let received = 0;
          const waiting: { count: number; resolve: () => void }[] = [];
          res.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            received += chunk.length;
            for (const wait of waiting.filter((w) => received >= w.count)) wait.resolve();
          });
          const ended = new Promise<{ complete: boolean; trailers: NodeJS.Dict<string> }>((done) => {
            res.on("error", () => undefined); // "aborted": the stream was cut; `complete` says so
            res.on("close", () => done({ complete: res.complete, trailers: res.trailers }));
          });
          resolve({
            res,
            bytes: () => Buffer.concat(chunks),
            atLeast: (count) =>
              received >= count
                ? Promise.resolve()
                : new Promise<void>((done) => waiting.push({ count, resolve: done })),
            ended,
            destroy: () => req.destroy(),
          });
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** The one speech job running now (the tests run one at a time): its id is the audio's key. */
  async function activeJobId(): Promise<string> {
    return waitFor("a speech job active", async () => (await queue.getJobs(["active"]))[0]?.id, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
  }

  const stored = (requestId: string) => service.gw.deps.redis.getBuffer(service.gw.deps.keys.audio(requestId));
  const metaOf = (requestId: string) => service.gw.deps.redis.get(service.gw.deps.keys.audioMeta(requestId));

  /** Starts a held synthesis and waits until the client has the whole first piece (all the worker has published). */
  async function firstPieceOf(format: AudioFormat, headers: Record<string, string> = {}) {
    control.held = deferred();
    const answer = await speak({ text: TEXT, voice: "Witch", format }, headers);
    const requestId = await activeJobId();
    await answer.atLeast(1);
    const firstPiece = (await stored(requestId)) as Buffer; // held: exactly the first piece
    await answer.atLeast(firstPiece.length);
    return { answer, requestId, firstPiece, held: control.held };
  }

  const VALID_START: Record<AudioFormat, (bytes: Buffer) => void> = {
    wav: (bytes) => {
      const wav = inspectWav(bytes);
      expect(wav).toMatchObject({
        format: 1,
        channels: 1,
        bitsPerSample: 16,
        riffSize: 0xffffffff,
        dataBytes: 0xffffffff,
      });
      expect(rms(wav.samples)).toBeGreaterThan(500);
    },
    pcm: (bytes) => {
      expect(bytes.length % 2).toBe(0);
      expect(rms(pcmFromLittleEndian(bytes))).toBeGreaterThan(500);
    },
    mp3: (bytes) => expect(inspectMp3(bytes).frames).toBeGreaterThan(10), // whole frames, chained to the last byte
    opus: (bytes) => {
      const pages = parseOggPages(bytes); // whole pages, to the last byte
      expect(ascii(pages[0]?.packets[0] ?? Buffer.alloc(0), 0, 8)).toBe("OpusHead");
      expect(pages.length).toBeGreaterThan(2);
      expect(pages.every((page) => page.crcValid)).toBe(true);
      expect(pages.some((page) => page.flags & 0x04)).toBe(false); // not the last page yet
    },
    flac: (bytes) =>
      expect(inspectFlac(bytes)).toMatchObject({
        channels: 1,
        bitsPerSample: 16,
        totalSamples: 0,
        md5: "0".repeat(32),
      }),
  };

  it.each(AUDIO_FORMATS)(
    "when %s is streamed, then the first piece arrives while the job is still running and is a valid start of the format, and all pieces together are the stored audio, valid and whole",
    async (format) => {
      const { answer, requestId, firstPiece, held } = await firstPieceOf(format, {
        "Idempotency-Key": `whole-${format}`,
      });
      expect(answer.res.headers["transfer-encoding"]).toBe("chunked");
      expect(answer.res.headers["content-length"]).toBeUndefined();
      expect(await metaOf(requestId)).toBeNull(); // the audio is not whole yet
      expect(await (await queue.getJob(requestId))?.getState()).toBe("active");
      expect(answer.bytes().equals(firstPiece)).toBe(true);
      VALID_START[format](answer.bytes());

      held.resolve();
      const { complete, trailers } = await answer.ended;
      expect(complete).toBe(true);
      const all = answer.bytes();
      expect(all.length).toBeGreaterThan(firstPiece.length);
      expect(all.equals((await stored(requestId)) as Buffer)).toBe(true); // kept: it had an Idempotency-Key
      const meta = JSON.parse((await metaOf(requestId)) as string) as { byteLength: number; durationSeconds: number };
      expect(meta.byteLength).toBe(all.length);
      expect(Number(trailers["x-audio-duration"])).toBeCloseTo(meta.durationSeconds, 3);
      const measured = await measureAudio({
        bytes: all,
        format,
        contentType: answer.res.headers["content-type"],
      } as SynthesizedAudio);
      expect(measured.loud).toBe(true);
      expect(measured.durationSeconds).toBeGreaterThan(meta.durationSeconds - 0.1);
      expect(measured.durationSeconds).toBeLessThan(meta.durationSeconds + 0.2);
      // 2 chunks, the end
      expect(await service.gw.deps.redis.xlen(service.gw.deps.keys.audioStream(requestId))).toBeGreaterThanOrEqual(3);
    },
  );

  it("when the synthesis fails after the first piece, then the response is cut (no last chunk), the job is failed, no speech is counted, and a retry with the same Idempotency-Key synthesizes again", async () => {
    const usage = new ApiKeyUsage(service.gw.deps.redis, service.gw.deps.keys);
    const secondsBefore = (await usage.lastDays(keyId, 1))[0]?.speechSeconds ?? 0;
    const { answer, requestId, held } = await firstPieceOf("mp3", { "Idempotency-Key": "fails-once" });
    held.reject(new Error("injected: publishing the second piece failed"));
    const { complete } = await answer.ended;
    expect(complete).toBe(false);
    expect(answer.bytes().length).toBeGreaterThan(0);
    // The worker publishes the failure, then BullMQ records it: wait for that (bounded).
    await waitFor("the speech job failed", async () => (await queue.getJobState(requestId)) === "failed", {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    const job = await queue.getJob(requestId);
    expect(await job?.getState()).toBe("failed");
    expect(job?.failedReason).toMatch(/failed after the first audio was sent: injected/);
    expect(job?.attemptsMade).toBe(1); // not retried: the client had this run's bytes
    expect((await usage.lastDays(keyId, 1))[0]?.speechSeconds).toBe(secondsBefore);
    const served = await service.gw.deps.metrics.registry.getSingleMetric("http_requests_total")?.get();
    const cut = served?.values.find((v) => v.labels.route === "/api/audio/full" && v.labels.status === "500");
    expect(cut?.value).toBe(1); // the gateway's record of it: an error, whatever its headers said

    control.held = null; // the retry runs unhindered
    const retry = await speak({ text: TEXT, voice: "Witch", format: "mp3" }, { "Idempotency-Key": "fails-once" });
    expect(retry.res.statusCode).toBe(200);
    expect((await retry.ended).complete).toBe(true);
    expect(inspectMp3(retry.bytes()).frames).toBeGreaterThan(100);
  });

  it("when a streamed request is replayed with its Idempotency-Key, then the same bytes come back whole, with Content-Length, from one synthesis", async () => {
    // The previous test's last job completes just after its stream ends: counted before, not during, this one.
    await waitFor("no speech job running", async () => ((await queue.getJobCounts("active")).active ?? 0) === 0, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    const completedBefore = (await queue.getJobCounts("completed")).completed ?? 0;
    const first = await speak({ text: TEXT, format: "opus" }, { "Idempotency-Key": "replayed" });
    expect((await first.ended).complete).toBe(true);
    expect(first.res.headers["transfer-encoding"]).toBe("chunked");
    const replay = await speak({ text: TEXT, format: "opus" }, { "Idempotency-Key": "replayed" });
    expect((await replay.ended).complete).toBe(true);
    expect(replay.bytes().equals(first.bytes())).toBe(true);
    expect(Number(replay.res.headers["content-length"])).toBe(first.bytes().length);
    const completed = async () => (await queue.getJobCounts("completed")).completed ?? 0;
    // The stream ends just before the job completes.
    await waitFor("the job completed", async () => (await completed()) > completedBefore, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    expect(await completed()).toBe(completedBefore + 1);
  });

  it("when the client goes away mid-stream, then its reader stops and frees its connection, and the audio is still made whole for a retry", async () => {
    const { answer, requestId, held } = await firstPieceOf("wav", { "Idempotency-Key": "left-early" });
    expect(service.gw.deps.speechJobs?.readers.open).toBe(1);
    answer.destroy();
    await waitFor("no reader open", () => service.gw.deps.speechJobs?.readers.open === 0, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    expect(service.gw.deps.speechJobs?.readers.open).toBe(0);
    held.resolve();
    // The retry waits for the first request's audio to be whole, then gets it.
    const retry = await speak({ text: TEXT, voice: "Witch", format: "wav" }, { "Idempotency-Key": "left-early" });
    expect((await retry.ended).complete).toBe(true);
    expect(retry.bytes().equals((await stored(requestId)) as Buffer)).toBe(true);
  });

  it("when another gateway on the same Redis serves the request, then it streams what the worker publishes just the same", async () => {
    const other = await startTestGateway(service.gw.prefix); // same prefix: same keys, queue and audio

    const otherServer = other.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => otherServer.once("listening", resolve));
    try {
      const answer = await speak({ text: TEXT, voice: "Mage", format: "flac" }, {}, otherServer);
      const { complete, trailers } = await answer.ended;
      expect(complete).toBe(true);
      expect(answer.res.headers["transfer-encoding"]).toBe("chunked");
      const measured = await measureAudio({
        bytes: answer.bytes(),
        format: "flac",
        contentType: "audio/flac",
      } as SynthesizedAudio);
      expect(measured.loud).toBe(true);
      expect(measured.durationSeconds).toBeCloseTo(Number(trailers["x-audio-duration"]), 1);
      // Its reader lets go of its connection once the answer is out, which the client may see first.
      await waitFor("no reader open", () => other.deps.speechJobs?.readers.open === 0, {
        timeoutMs: 5000,
        intervalMs: 20,
      });
      expect(other.deps.speechJobs?.readers.open).toBe(0);
    } finally {
      await new Promise((resolve) => otherServer.close(resolve));
      await other.close({ keepKeys: true }); // the service's own gateway cleans the prefix up
    }
  });

  it("when a streamed request is served, then speech usage counts its seconds as the trailer states them", async () => {
    const usage = new ApiKeyUsage(service.gw.deps.redis, service.gw.deps.keys);
    const before = (await usage.lastDays(keyId, 1))[0]?.speechSeconds ?? 0;
    const answer = await speak({ text: "Mind the cauldron. It bites.", format: "pcm" });
    const { complete, trailers } = await answer.ended;
    expect(complete).toBe(true);
    expect(((await usage.lastDays(keyId, 1))[0]?.speechSeconds ?? 0) - before).toBeCloseTo(
      Number(trailers["x-audio-duration"]),
      2,
    );
  });
});
