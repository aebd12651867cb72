import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { StatusRecord } from "@chorus/contracts";
import request from "supertest";
import { defaultRequest, describeWithModel } from "../../../test-support/fixtures.js";
import { startTestGateway, type TestGateway } from "../../../test-support/gateway.js";
import { uniquePrefix } from "../../../test-support/redis.js";
import { submittedId } from "../../../test-support/response-body.js";
import { openStatusStream, type StatusStreamClient } from "../../../test-support/sse.js";
import {
  describeEachLlamaRuntime,
  type LlmEngine,
  loadFixtureEngine,
  startTestWorker,
  type TestWorker,
} from "../../../test-support/worker.js";

/** Status streams of jobs the real worker runs on the fixture model: queued, generating, completed. */
describeWithModel("status stream with the real worker (stories260K-chatml)", () =>
  describeEachLlamaRuntime("status stream with the real worker", (runtime) => {
    const SLOTS = 2;
    let gw: TestGateway;
    let server: Server;
    let engine: LlmEngine;
    let worker: TestWorker;
    let key: string;

    beforeAll(async () => {
      const prefix = uniquePrefix("status-stream-worker");
      gw = await startTestGateway(prefix);
      server = gw.app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      engine = await loadFixtureEngine(SLOTS, 1024, runtime);
      worker = await startTestWorker(prefix, engine, { concurrency: SLOTS });
      key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    }, 120_000);
    afterAll(async () => {
      await worker.close();
      await engine.close();
      await new Promise((resolve) => server.close(resolve));
      await gw.close();
    }, 60_000);

    async function submitAndStream(i: number): Promise<{ id: string; sse: StatusStreamClient }> {
      const body = {
        ...defaultRequest(`Tell me story number ${i} about a brave cat.`),
        samplingParams: { max_tokens: 400 },
      };
      const submitted = await request(gw.app).post("/api/text/default").auth(key, { type: "bearer" }).send(body);
      expect(submitted.status).toBe(200);
      const id = submittedId(submitted);
      const sse = await openStatusStream(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/status/${id}`,
        key,
      );
      return { id, sse };
    }

    it("when a burst of streams larger than the worker's slots is open, then each shows its job in order and ends with its final record", async () => {
      const streams = await Promise.all(Array.from({ length: 3 * SLOTS }, (_, i) => submitAndStream(i)));
      await Promise.all(streams.map(({ sse }) => sse.ended));
      const partials: string[] = [];
      for (const { id, sse } of streams) {
        const final = (await request(gw.app).get(`/api/v2/status/${id}`).auth(key, { type: "bearer" }))
          .body as StatusRecord;
        const records = sse.events.map((e) => e.record);
        expect(final.status).toBe("completed");
        expect(records.at(-1)).toEqual(final);
        expect(records.slice(0, -1).every((r) => r.status === "processing")).toBe(true);
        const progress = records.slice(0, -1).map((r) => r.progress ?? 0);
        expect(progress).toEqual([...progress].sort((a, b) => a - b));
        const ids = sse.events.map((e) => Number(e.id));
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        for (const partial of records.flatMap((r) => (r.partialReply === undefined ? [] : [r.partialReply]))) {
          expect(final.reply?.startsWith(partial)).toBe(true);
          partials.push(partial);
        }
      }
      // More jobs than slots: some waited in the queue, and their streams saw them leave it.
      const queuedThenStarted = streams.filter(
        ({ sse }) =>
          sse.events[0]?.record.queuePosition !== undefined &&
          sse.events.some((e) => e.record.status === "processing" && e.record.queuePosition === undefined),
      );
      expect(queuedThenStarted.length).toBeGreaterThan(0);
      expect(partials.some((partial) => partial.length > 0)).toBe(true);
    }, 180_000);
  }),
);
