import { ChorusClient } from "./chorus-client.js";
import { ChorusError } from "./errors.js";
import type { StatusRecord } from "./types.js";
import {
  envelope,
  json,
  networkError,
  scriptedFetch,
  sse,
  statusEvent,
  type SentRequest,
} from "./transport.test-helpers.js";

const queued = { status: "processing", progress: 0, queuePosition: 0 };
const generating = { status: "processing", progress: 0.5, partialReply: "Once" };
const completed = { status: "completed", reply: "Once upon a time.", tokens: 5 };
const failed = { status: "error", error: "generation failed: boom" };
const submitted = json(200, { id: "r1", tokens: -1 });

function client(script: Parameters<typeof scriptedFetch>[0], options: { stream?: boolean } = {}) {
  const { fetch, sent } = scriptedFetch(script);
  return {
    sdk: new ChorusClient({ baseUrl: "http://api.test/", apiKey: "k1", fetch, retry: { baseDelayMs: 1 }, ...options }),
    sent,
  };
}

const updates = () => {
  const seen: StatusRecord[] = [];
  return { seen, onUpdate: (record: StatusRecord) => seen.push(record) };
};

describe("ChorusClient", () => {
  it("when a submit is retried after a network error, then every attempt carries the same generated Idempotency-Key", async () => {
    const { sdk, sent } = client([networkError(), submitted, submitted]);
    expect(await sdk.submit("default", { messages: [{ role: "You", content: "Hi", index: 0 }] })).toEqual({
      id: "r1",
      tokens: -1,
    });
    await sdk.submit("default", { messages: [{ role: "You", content: "Hi", index: 0 }] });
    const keys = sent.map((request) => request.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(sent[0]?.url).toBe("http://api.test/api/text/default");
  });

  it("when the stream sends snapshots, then onUpdate sees each and wait resolves with the final record", async () => {
    const { sdk, sent } = client([
      sse([statusEvent(1, queued), ": keep-alive\n\n", statusEvent(2, generating), statusEvent(3, completed)]),
    ]);
    const { seen, onUpdate } = updates();
    expect(await sdk.wait("r1", { onUpdate })).toEqual(completed);
    expect(seen).toEqual([queued, generating, completed]);
    expect(sent[0]?.headers.accept).toBe("text/event-stream");
    expect(sent[0]?.url).toBe("http://api.test/api/v2/status/r1");
  });

  it("when the stream drops after an event, then it reconnects with Last-Event-ID and shows no snapshot twice", async () => {
    const { sdk, sent } = client([
      sse([statusEvent(4, generating)], "break"),
      sse([statusEvent(4, generating), statusEvent(6, completed)]),
    ]);
    const { seen, onUpdate } = updates();
    expect(await sdk.wait("r1", { onUpdate })).toEqual(completed);
    expect(sent[1]?.headers["last-event-id"]).toBe("4");
    expect(seen).toEqual([generating, completed]);
  });

  it("when the server answers JSON instead of a stream, then wait polls with Prefer: wait until the record is final", async () => {
    const { sdk, sent } = client([
      json(200, generating),
      json(200, generating, { "preference-applied": "wait=30" }),
      json(200, completed, { "preference-applied": "wait=30" }),
    ]);
    const { seen, onUpdate } = updates();
    expect(await sdk.wait("r1", { onUpdate })).toEqual(completed);
    expect(sent.map((request) => request.headers.prefer)).toEqual([undefined, "wait=30", "wait=30"]);
    expect(seen).toEqual([generating, completed]);
  });

  it("when streaming is off, then wait polls from the first call, and a 429 is waited out", async () => {
    const { sdk, sent } = client(
      [
        envelope(429, "RATE_LIMITED", { "retry-after": "0" }),
        json(200, completed, { "preference-applied": "wait=30" }),
      ],
      { stream: false },
    );
    expect(await sdk.wait("r1")).toEqual(completed);
    expect(sent.map((request) => request.headers.accept)).toEqual(["application/json", "application/json"]);
  });

  it("when the stream keeps breaking before any event, then wait gives up on it and polls", async () => {
    const broken = Array.from({ length: 5 }, () => sse([], "break"));
    const { sdk, sent } = client([...broken, json(200, completed, { "preference-applied": "wait=30" })]);
    expect(await sdk.wait("r1")).toEqual(completed);
    expect(sent.at(-1)?.headers.prefer).toBe("wait=30");
    expect(sent).toHaveLength(6);
  });

  it("when the request ends in error, then generate rejects with REQUEST_FAILED carrying the record", async () => {
    const { sdk } = client([submitted, sse([statusEvent(1, failed)])]);
    const error = (await sdk.generate("default", { messages: [] }).catch((e: unknown) => e)) as ChorusError;
    expect(error).toBeInstanceOf(ChorusError);
    expect(error).toMatchObject({ code: "REQUEST_FAILED", status: undefined, details: { id: "r1", record: failed } });
    expect(error.requestFailed).toBe(true);
  });

  it("when generate completes, then it resolves with the record and its id", async () => {
    const { sdk } = client([submitted, sse([statusEvent(1, completed)])]);
    expect(await sdk.generate("Witch", { messages: [] })).toEqual({ id: "r1", ...completed });
  });

  it.each([
    [undefined, ["POST", "GET", "DELETE"]],
    [false, ["POST", "GET"]],
  ])(
    "when generate is aborted while waiting (cancelOnAbort %s), then it rejects with the reason, cancelling only by default",
    async (cancelOnAbort, methods) => {
      const controller = new AbortController();
      const { sdk, sent } = client([
        submitted,
        sse([statusEvent(1, queued)], "hang"),
        json(200, { status: "error", error: "cancelled" }),
      ]);
      const onUpdate = () => controller.abort(new Error("user left"));
      await expect(
        sdk.generate("default", { messages: [] }, { signal: controller.signal, onUpdate, cancelOnAbort }),
      ).rejects.toThrow("user left");
      expect(sent.map((request: SentRequest) => request.init.method)).toEqual(methods);
    },
  );

  it("when a cancel meets 409 because an earlier attempt cancelled it, then the cancelled record is answered", async () => {
    const cancelled = { status: "error", error: "cancelled" };
    const { sdk } = client([
      envelope(503, "SERVICE_UNAVAILABLE", { "retry-after": "0" }),
      envelope(409, "CONFLICT"),
      json(200, cancelled),
    ]);
    expect(await sdk.cancel("r1")).toEqual(cancelled);
    const other = client([envelope(409, "CONFLICT"), json(200, completed)]).sdk;
    await expect(other.cancel("r1")).rejects.toMatchObject({ code: "CONFLICT", status: 409 });
  });

  it("when speech answers audio, then its bytes and headers come back", async () => {
    const audio = () =>
      new Response(new Uint8Array([1, 2, 3]), {
        headers: { "content-type": "audio/L16;rate=22050", "x-audio-duration": "0.500", "x-sample-rate": "22050" },
      });
    const { sdk, sent } = client([audio]);
    expect(await sdk.speech({ text: "Hi", format: "pcm" })).toEqual({
      audio: new Uint8Array([1, 2, 3]),
      contentType: "audio/L16;rate=22050",
      durationSeconds: 0.5,
      sampleRate: 22050,
    });
    expect(sent[0]?.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("when listing, then the query and the ids are sent as the API reads them", async () => {
    const { sdk, sent } = client([
      json(200, { data: [], nextCursor: null }),
      json(200, { data: [{ id: "a", ...completed }] }),
      json(200, { voices: [{ id: "Witch" }] }),
    ]);
    await sdk.requests({ status: "completed", limit: 5, cursor: "c/1" });
    expect(await sdk.statuses(["a", "b c"])).toEqual([{ id: "a", ...completed }]);
    expect(await sdk.voices()).toEqual([{ id: "Witch" }]);
    expect(sent.map((request) => request.url)).toEqual([
      "http://api.test/api/v2/requests?status=completed&limit=5&cursor=c%2F1",
      "http://api.test/api/v2/status?ids=a,b%20c",
      "http://api.test/api/voices",
    ]);
  });
});
