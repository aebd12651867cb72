import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { StatusRecord } from "@chorus/contracts";
import { Redis } from "ioredis";
import request from "supertest";
import { defaultRequest, SAMPLE_COMPLETION } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { TEST_REDIS_URL, uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { openStatusStream, type StatusEvent } from "../../../test-support/sse.js";
import { waitFor } from "../../../test-support/wait-for.js";

/** GET /api/v2/status/{id} with Accept: text/event-stream: the record as Server-Sent Events until it is final. */
let gw: TestGateway;
let server: Server;
let baseUrl: string;
let key: string;
let stranger: string;
beforeAll(async () => {
  gw = await startTestGateway(uniquePrefix("status-stream"));
  key = await gw.createKey();
  stranger = await gw.createKey();
  server = gw.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await gw.close();
});

const completion = SAMPLE_COMPLETION;
const submit = async (): Promise<string> =>
  submittedId(await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(defaultRequest()));
const plain = (id: string) => request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" });
const stream = (id: string, headers: Record<string, string> = {}, path = "/api/v2/status/") =>
  openStatusStream(`${baseUrl}${path}${id}`, key, headers);
const records = (events: StatusEvent[]) => events.map((e) => e.record);

/** Waits until the gateway's open streams number `count` (the stream is then listening for changes). */
async function untilListening(count: number): Promise<void> {
  await waitFor(`${count} streams listening`, () => gw.deps.statusChanges.listening === count, {
    timeoutMs: 10_000,
    intervalMs: 10,
  });
}

describe("status stream (SSE)", () => {
  it.each(["/api/v2/status/", "/api/status/"])(
    "when a queued job starts, progresses and completes, then %s{id} streams each snapshot in order, the final record last, then ends",
    async (path) => {
      const id = await submit();
      const sse = await stream(id, {}, path);
      expect(sse.response.status).toBe(200);
      expect(sse.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(sse.response.headers.get("cache-control")).toBe("no-store");
      await sse.untilEvents(1);
      await untilListening(1);
      await gw.deps.statuses.markStarted(id);
      await sse.untilEvents(2);
      await gw.deps.statuses.updateProgress(id, 0.3, 4, { text: "Once", attempt: "a" });
      await sse.untilEvents(3);
      await gw.deps.statuses.updateProgress(id, 0.6, 2, { text: "Once upon", attempt: "a" });
      await sse.untilEvents(4);
      await gw.deps.statuses.complete(id, completion);
      await sse.ended;
      const final = (await plain(id)).body as StatusRecord;
      expect(records(sse.events)).toEqual([
        { status: "processing", progress: 0, queuePosition: 0 },
        { status: "processing", progress: 0 },
        { status: "processing", progress: 0.3, estimatedTimeRemaining: 4, partialReply: "Once" },
        { status: "processing", progress: 0.6, estimatedTimeRemaining: 2, partialReply: "Once upon" },
        final,
      ]);
      expect(final).toEqual({ status: "completed", ...completion });
      expect(sse.events.map((e) => e.event)).toEqual(sse.events.map(() => "status"));
      const ids = sse.events.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      await untilListening(0);
    },
  );

  it("when the record is already final, then the stream is that one event and ends, and the plain GET shows the same", async () => {
    const id = await submit();
    await gw.deps.statuses.fail(id, "generation failed: test");
    const sse = await stream(id);
    await sse.ended;
    expect(records(sse.events)).toEqual([(await plain(id)).body]);
    expect(sse.events[0]?.id).toBe(String((await gw.deps.statuses.get(id))?.rev));
  });

  it("when the job ends in error while streaming, then the error record is the last event and the stream ends", async () => {
    const id = await submit();
    const sse = await stream(id);
    await sse.untilEvents(1);
    await untilListening(1);
    await gw.deps.statuses.fail(id, "generation failed: test");
    await sse.ended;
    expect(sse.events.at(-1)?.record).toEqual({ status: "error", error: "generation failed: test" });
    await untilListening(0);
  });

  describe("Last-Event-ID", () => {
    it("when it is the current rev of a final record, then nothing is sent and the stream ends", async () => {
      const id = await submit();
      await gw.deps.statuses.complete(id, completion);
      const rev = (await gw.deps.statuses.get(id))?.rev;
      const sse = await stream(id, { "last-event-id": String(rev) });
      await sse.ended;
      expect(sse.response.status).toBe(200);
      expect(sse.events).toEqual([]);
    });

    it("when it is an older rev, then the current snapshot is sent", async () => {
      const id = await submit();
      await gw.deps.statuses.complete(id, completion);
      const rev = (await gw.deps.statuses.get(id))!.rev;
      const sse = await stream(id, { "last-event-id": String(rev - 1) });
      await sse.ended;
      expect(sse.events.map((e) => [e.id, e.record.status])).toEqual([[String(rev), "completed"]]);
    });

    it("when it is the current rev of a started record, then the first event is the next change", async () => {
      const id = await submit();
      await gw.deps.statuses.markStarted(id);
      await gw.deps.statuses.updateProgress(id, 0.5, 3, { text: "Once upon", attempt: "a" });
      const rev = (await gw.deps.statuses.get(id))!.rev;
      const sse = await stream(id, { "last-event-id": String(rev) });
      await untilListening(1);
      await gw.deps.statuses.complete(id, completion);
      await sse.ended;
      expect(sse.events.map((e) => [e.id, e.record.status])).toEqual([[String(rev + 1), "completed"]]);
    });

    it("when the record is still queued, then the current snapshot is sent even with its current rev", async () => {
      const id = await submit();
      const rev = (await gw.deps.statuses.get(id))!.rev;
      const sse = await stream(id, { "last-event-id": String(rev) });
      const [first] = await sse.untilEvents(1);
      expect(first).toEqual({
        event: "status",
        id: String(rev),
        record: { status: "processing", progress: 0, queuePosition: expect.any(Number) },
      });
      sse.abort();
      await untilListening(0);
    });
  });

  it("when a job ahead starts, then a queued stream shows the new queue position without any write to its own record", async () => {
    const ahead = await submit();
    const id = await submit();
    const sse = await stream(id);
    const [first] = await sse.untilEvents(1);
    const position = first!.record.queuePosition!;
    expect(position).toBeGreaterThan(0);
    await gw.deps.statuses.markStarted(ahead);
    const [, second] = await sse.untilEvents(2);
    expect(second?.record).toEqual({ status: "processing", progress: 0, queuePosition: position - 1 });
    expect(second?.id).toBe(first?.id); // the record itself did not change
    sse.abort();
    await untilListening(0);
  });

  it("when the id is another key's, then the answer is the plain 404 JSON envelope, not a stream", async () => {
    const id = await submit();
    const res = await openStatusStream(`${baseUrl}/api/v2/status/${id}`, stranger);
    expect(res.response.status).toBe(404);
    expect(res.response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    await res.ended;
    expect(gw.deps.statusChanges.listening).toBe(0);
  });

  it("when a stream sends several events, then it has counted once against the status budget", async () => {
    const id = await submit();
    const before = Number((await plain(id)).headers["x-ratelimit-remaining"]);
    const sse = await stream(id);
    expect(Number(sse.response.headers.get("x-ratelimit-remaining"))).toBe(before - 1);
    await sse.untilEvents(1);
    await untilListening(1);
    await gw.deps.statuses.markStarted(id);
    await gw.deps.statuses.complete(id, completion);
    await sse.ended;
    expect(sse.events.length).toBeGreaterThanOrEqual(2);
    expect(Number((await plain(id)).headers["x-ratelimit-remaining"])).toBe(before - 2);
  });

  it("when the client disconnects, then the gateway keeps no listener for it, and its one subscription stays the gateway's only one", async () => {
    const id = await submit();
    const sse = await stream(id);
    await sse.untilEvents(1);
    await untilListening(1);
    sse.abort();
    await untilListening(0);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      expect(await redis.pubsub("NUMSUB", gw.deps.keys.statusChangedChannel())).toEqual([
        gw.deps.keys.statusChangedChannel(),
        1,
      ]);
    } finally {
      redis.disconnect();
    }
  });

  it("when nothing changes for 15 s, then the stream sends a keep-alive comment and stays open", async () => {
    const id = await submit();
    await gw.deps.statuses.markStarted(id); // started: no queue re-reads, only the quiet timer
    const sse = await stream(id);
    await sse.untilEvents(1);
    await waitFor("a keep-alive comment", () => sse.comments.length > 0, { timeoutMs: 30_000, intervalMs: 100 });
    expect(sse.comments.map((c) => c.trim())).toEqual(["keep-alive"]);
    expect(sse.events).toHaveLength(1); // the re-read after the silence found nothing new
    sse.abort();
    await untilListening(0);
  }, 40_000);

  it("when the client does not ask for a stream, then the answer is the plain JSON record", async () => {
    const id = await submit();
    const res = await plain(id).set("Accept", "application/json, text/event-stream;q=0.5");
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.body).toMatchObject({ status: "processing" });
  });
});

describe("status stream on gateway shutdown", () => {
  it("when the gateway shuts down, then its open streams end and its server can close", async () => {
    const own = await startTestGateway(uniquePrefix("status-stream-shutdown"));
    const ownServer = own.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => ownServer.once("listening", resolve));
    const ownKey = await own.createKey();
    const id = submittedId(
      await request(own.app).post("/api/text/default").auth(ownKey, { type: "bearer" }).send(defaultRequest()),
    );
    const sse = await openStatusStream(
      `http://127.0.0.1:${(ownServer.address() as AddressInfo).port}/api/v2/status/${id}`,
      ownKey,
    );
    await sse.untilEvents(1);
    await waitFor("the stream listening", () => own.deps.statusChanges.listening > 0, {
      timeoutMs: 10_000,
      intervalMs: 10,
    });
    const closed = new Promise((resolve) => ownServer.close(resolve)); // as main.ts does on SIGTERM
    own.deps.statusChanges.close();
    await sse.ended;
    await closed;
    expect(own.deps.statusChanges.listening).toBe(0);
    await own.close();
  });
});
