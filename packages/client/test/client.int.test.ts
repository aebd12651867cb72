import { afterAll, afterEach, beforeAll, expect, it } from "@jest/globals";
import { ChorusClient, ChorusError, type FetchLike, type StatusRecord } from "@chorus/client";
import { describeWithModel } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { startLiveStack, type LiveStack } from "../../../test-support/live-stack.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { waitFor } from "../../../test-support/wait-for.js";
import { EspeakSpeechEngine } from "../../../test-support/worker.js";

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  status?: number;
}

/** The platform's fetch, noting each call and its answer's status. */
function recordingFetch(): { fetch: FetchLike; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    const call: Sent = { method: init.method ?? "GET", url, headers: { ...(init.headers as Record<string, string>) } };
    sent.push(call);
    const response = await globalThis.fetch(url, init);
    call.status = response.status;
    return response;
  };
  return { fetch, sent };
}

const story = (content: string, maxTokens = 40) => ({
  messages: [{ role: "You" as const, content, index: 0 }],
  samplingParams: { max_tokens: maxTokens },
});

/** The SDK against the real gateway (over HTTP) and the real worker on the fixture model and eSpeak NG. */
describeWithModel("@chorus/client against the real gateway and worker", () => {
  let stack: LiveStack;
  let gw: TestGateway;
  let speech: EspeakSpeechEngine;
  let baseUrl: string;
  let key: string;
  const unexpectedFailures: string[] = [];
  const cancelled = new Set<string>();
  const attemptsStarted = new Map<string, number>();

  beforeAll(async () => {
    speech = new EspeakSpeechEngine({ concurrency: 1 });
    // A two-second window: a spent budget's Retry-After is short enough to wait out in a test.
    stack = await startLiveStack(
      uniquePrefix("client"),
      { RATE_LIMIT_WINDOW_MS: "2000" },
      { speech: { speech, concurrency: 1, audioTtlSeconds: 60 } },
    );
    ({ gw, baseUrl } = stack);
    const [text] = stack.worker.workers;
    // A test that passes only because BullMQ ran a job again is a failing test: every attempt is watched.
    text?.on("failed", (job, error) => {
      if (!cancelled.has(String(job?.id))) unexpectedFailures.push(`${String(job?.id)}: ${error.message}`);
    });
    text?.on("completed", (job) => attemptsStarted.set(String(job.id), job.attemptsStarted));
    key = await gw.createKey({ limits: { text: 100_000, status: 100_000, tts: 1000 } });
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await speech.close();
  }, 60_000);
  afterEach(() => {
    expect(unexpectedFailures).toEqual([]);
    expect([...attemptsStarted.values()].every((attempts) => attempts === 1)).toBe(true);
  });

  const client = (fetch?: FetchLike, apiKey = key, stream = true) =>
    new ChorusClient({ baseUrl, apiKey, fetch, stream, retry: { baseDelayMs: 50 } });

  it("when generating, then onUpdate sees progress and the reply growing on the stream, and the completed record comes last", async () => {
    const { fetch, sent } = recordingFetch();
    const updates: StatusRecord[] = [];
    const result = await client(fetch).generate("default", story("Tell me a story about a brave cat.", 400), {
      onUpdate: (record) => updates.push(record),
    });
    expect(result).toMatchObject({
      id: expect.any(String),
      status: "completed",
      reply: expect.any(String),
      tokens: expect.any(Number),
    });
    const { id, ...final } = result;
    expect(updates.at(-1)).toEqual(final);
    expect(updates.slice(0, -1).every((record) => record.status === "processing")).toBe(true);
    const partials = updates.flatMap((record) => (record.partialReply ? [record.partialReply] : []));
    expect(partials.length).toBeGreaterThan(0);
    for (const partial of partials) expect(result.reply.startsWith(partial)).toBe(true);
    expect(updates.some((record) => record.status === "processing" && (record.progress ?? 0) > 0)).toBe(true);
    expect(sent.map((call) => `${call.method} ${call.headers.accept}`)).toEqual([
      "POST application/json",
      "GET text/event-stream",
    ]);
    expect(sent[1]?.url).toBe(`${baseUrl}/api/v2/status/${id}`);
  });

  it("when waiting on a request that has already finished, then the final record comes at once as the only update", async () => {
    const done = await client().generate("default", story("Sing me a song."));
    const updates: StatusRecord[] = [];
    const record = await client().wait(done.id, { onUpdate: (r) => updates.push(r) });
    const { id: _id, ...final } = done;
    expect(record).toEqual(final);
    expect(updates).toEqual([final]);
  });

  it("when streaming is off, then generate polls with Prefer: wait and gets the same kind of record", async () => {
    const { fetch, sent } = recordingFetch();
    const result = await client(fetch, key, false).generate("default", story("Tell me about the moon."));
    expect(result.status).toBe("completed");
    const polls = sent.filter((call) => call.method === "GET");
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((call) => call.headers.prefer === "wait=30" && call.headers.accept === "application/json")).toBe(
      true,
    );
  });

  it("when the request ends in error, then generate rejects with ChorusError REQUEST_FAILED holding the record", async () => {
    const sdk = client();
    let cancelling: Promise<StatusRecord> | undefined;
    const generated = sdk.generate("default", story("Tell me a very long story about a dragon.", 2048), {
      onUpdate: (record, id) => {
        cancelled.add(id);
        cancelling ??= sdk.cancel(id);
      },
    });
    const error = (await generated.catch((e: unknown) => e)) as ChorusError;
    expect(error).toBeInstanceOf(ChorusError);
    expect(error.code).toBe("REQUEST_FAILED");
    expect(error.status).toBeUndefined();
    expect(error.details).toEqual({
      id: expect.any(String),
      record: { status: "error", error: "cancelled", errorCode: "cancelled", finishReason: "cancelled" },
    });
    expect(await cancelling).toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
  });

  it("when a processing request is cancelled, then cancel and wait both give the cancelled record", async () => {
    const sdk = client();
    const { id } = await sdk.submit("default", story("Tell me a very long story about a castle.", 2048));
    cancelled.add(id);
    expect(await sdk.cancel(id)).toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
    expect(await sdk.wait(id)).toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
    await expect(sdk.cancel(id)).resolves.toEqual({
      status: "error",
      error: "cancelled",
      errorCode: "cancelled",
      finishReason: "cancelled",
    });
  });

  it("when speech is asked for, then real WAV bytes come back with their content type and duration; voices lists the characters'", async () => {
    const sdk = client();
    const speech = await sdk.speech({ text: "Hello there, traveller.", voice: "Witch", format: "wav" });
    expect(speech.contentType).toBe("audio/wav");
    expect(new TextDecoder().decode(speech.audio.subarray(0, 4))).toBe("RIFF");
    expect(new TextDecoder().decode(speech.audio.subarray(8, 12))).toBe("WAVE");
    expect(speech.audio.length).toBeGreaterThan(10_000);
    expect(speech.durationSeconds).toBeGreaterThan(0.5);
    expect(speech.sampleRate).toBeGreaterThan(0);
    expect((await sdk.voices()).map((voice) => voice.id)).toEqual(
      expect.arrayContaining(["Witch", "Mage", "Succubus", "Lightning"]),
    );
  });

  it("when a reply is generated with speak, then replyAudio fetches its spoken reply as WAV bytes", async () => {
    const sdk = client();
    const record = await sdk.generate("default", { ...story("Hello!", 12), speak: { format: "wav" } });
    expect(record).toMatchObject({ audioUrl: `/api/v2/status/${record.id}/audio` });
    const audio = await sdk.replyAudio(record);
    expect(audio.contentType).toBe("audio/wav");
    expect(new TextDecoder().decode(audio.audio.subarray(0, 4))).toBe("RIFF");
    expect(audio.durationSeconds).toBeGreaterThan(0);
    await expect(sdk.replyAudio({ id: record.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("when a key's status budget is spent, then the 429 is retried after Retry-After and the call succeeds", async () => {
    const tiny = await gw.createKey({ limits: { text: 100, status: 1 } });
    const { fetch, sent } = recordingFetch();
    const sdk = client(fetch, tiny);
    const { id } = await sdk.submit("default", story("Hi."));
    await sdk.status(id);
    const record = await sdk.status(id);
    expect(["processing", "completed"]).toContain(record.status);
    const statuses = sent.filter((call) => call.method === "GET").map((call) => call.status);
    expect(statuses[0]).toBe(200);
    expect(statuses[1]).toBe(429);
    expect(statuses.at(-1)).toBe(200);
  });

  it("when a submit's connection drops after the gateway took it, then the retry gets the same request (one job, one Idempotency-Key)", async () => {
    const own = await gw.createKey({ limits: { text: 100, status: 1000 } });
    const sent: Sent[] = [];
    let firstAnswer: unknown;
    const droppingFetch: FetchLike = async (url, init) => {
      sent.push({ method: init.method ?? "GET", url, headers: { ...(init.headers as Record<string, string>) } });
      const response = await globalThis.fetch(url, init);
      if (sent.length > 1) return response;
      firstAnswer = await response.json(); // the gateway answered; the client never hears it
      throw new TypeError("fetch failed: socket hang up");
    };
    const sdk = client(droppingFetch, own);
    const submitted = await sdk.submit("default", story("Once more."));
    expect(sent).toHaveLength(2);
    expect(sent[1]?.headers["idempotency-key"]).toBe(sent[0]?.headers["idempotency-key"]);
    expect(submitted).toEqual(firstAnswer);
    const listed = await client(undefined, own).requests();
    expect(listed.data.map((item) => item.id)).toEqual([submitted.id]);
    expect((await client(undefined, own).wait(submitted.id)).status).toBe("completed");
  });

  it("when the stream breaks after its first event, then wait resumes with Last-Event-ID and ends with the final record", async () => {
    const { fetch, sent } = recordingFetch();
    let broken = false;
    // The first stream's body gives its first chunk, then fails as a cut connection does.
    const breakingFetch: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (broken || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
      broken = true;
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      void reader.cancel();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          if (first.value) controller.enqueue(first.value);
        },
        pull(controller) {
          controller.error(new TypeError("terminated: other side closed"));
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const sdk = client(breakingFetch);
    const { id } = await sdk.submit("default", story("Tell me a story about a lighthouse.", 400));
    const updates: StatusRecord[] = [];
    const record = await sdk.wait(id, { onUpdate: (r) => updates.push(r) });
    expect(record.status).toBe("completed");
    const streams = sent.filter((call) => call.headers.accept === "text/event-stream");
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams[0]?.headers["last-event-id"]).toBeUndefined();
    expect(streams[1]?.headers["last-event-id"]).toMatch(/^\d+$/);
    expect(updates.at(-1)).toEqual(record);
    expect(new Set(updates.map((r) => JSON.stringify(r))).size).toBe(updates.length);
  });

  it("when wait is aborted, then it rejects with the reason and the gateway holds no stream for it", async () => {
    const sdk = client();
    const { id } = await sdk.submit("default", story("Tell me a very long story about the sea.", 2048));
    cancelled.add(id);
    const controller = new AbortController();
    let streamsWhenAborting = 0;
    const onUpdate = () => {
      streamsWhenAborting = gw.deps.statusChanges.listening;
      controller.abort(new Error("reader left"));
    };
    await expect(sdk.wait(id, { signal: controller.signal, onUpdate })).rejects.toThrow("reader left");
    expect(streamsWhenAborting).toBe(1);
    // The stream closes as the client goes; the gateway notices on its next turn (bounded wait).
    await waitFor("the stream closed", () => gw.deps.statusChanges.listening === 0, {
      timeoutMs: 5000,
      intervalMs: 20,
    });
    await sdk.cancel(id);
  });
});
