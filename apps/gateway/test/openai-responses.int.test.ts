import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { StatusRecord } from "@chorus/contracts";
import OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import request from "supertest";
import { describeWithModel } from "../../../test-support/fixtures.js";
import type { TestGateway } from "../../../test-support/gateway.js";
import { startTestServiceWithSpeech, type TestService } from "../../../test-support/service.js";
import { waitFor } from "../../../test-support/wait-for.js";

const STORY = "Tell me a story about a brave cat.";

/** The Responses API driven by the official openai client, on the real worker and the fixture model. */
describeWithModel("the Responses API driven by the official openai client (stories260K-chatml)", () => {
  let service: TestService;
  let gw: TestGateway;
  let server: Server;
  let key: string;
  let openai: OpenAI;

  beforeAll(async () => {
    service = await startTestServiceWithSpeech("openai-responses");
    gw = service.gw;
    server = gw.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    key = await gw.createKey({ limits: { text: 1_000_000, status: 1_000_000 } });
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    openai = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await service.close();
  }, 60_000);

  /** The native record of a response: the same request, under its request id. */
  async function nativeRecord(responseId: string): Promise<StatusRecord> {
    const id = responseId.replace(/^resp_/, "");
    const res = await request(gw.app)
      .get(`/api/v2/status/${id}`)
      .auth(key, { type: "bearer" })
      .set("Prefer", "wait=30");
    return res.body as StatusRecord;
  }

  it("when a response is created, then it is the native job's reply, with usage and the echoed settings", async () => {
    const response = await openai.responses.create({
      model: "default",
      instructions: "Answer in one sentence.",
      input: STORY,
      max_output_tokens: 40,
      metadata: { ticket: "t-1" },
    });
    const record = await nativeRecord(response.id);
    expect(response).toMatchObject({
      object: "response",
      status: record.finishReason === "length" ? "incomplete" : "completed",
      model: "default",
      instructions: "Answer in one sentence.",
      max_output_tokens: 40,
      metadata: { ticket: "t-1" },
      usage: { input_tokens: record.promptTokens, output_tokens: record.tokens },
    });
    expect(response.output_text).toBe(record.reply);
    expect(response.output_text.length).toBeGreaterThan(0);
  });

  it("when input is a conversation of messages (an earlier output echoed back), then it is taken in order", async () => {
    const first = await openai.responses.create({ model: "default", input: STORY, max_output_tokens: 20 });
    const next = await openai.responses.create({
      model: "Witch",
      input: [
        { role: "user", content: STORY },
        ...first.output.filter((item) => item.type === "message"),
        { role: "user", content: [{ type: "input_text", text: "And then?" }] },
      ],
      max_output_tokens: 20,
    });
    expect(next.output_text.length).toBeGreaterThan(0);
    expect((await nativeRecord(next.id)).reply).toBe(next.output_text);
  });

  it("when streamed, then the events carry the reply in order and end with the completed response", async () => {
    const events: ResponseStreamEvent[] = [];
    for await (const event of await openai.responses.create({ model: "default", input: STORY, stream: true }))
      events.push(event);
    const types = events.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      expect.stringMatching(/^response\.(completed|incomplete)$/),
    ]);
    const numbers = events.map((event) => event.sequence_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    const text = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : [])).join("");
    const last = events.at(-1) as { response: { id: string; output_text?: string } };
    expect(text).toBe((await nativeRecord(last.response.id)).reply);
  });

  it("when created in the background, then it answers at once and is polled, and the native API sees it too", async () => {
    const queued = await openai.responses.create({ model: "default", input: STORY, background: true });
    expect(["queued", "in_progress"]).toContain(queued.status);
    let polled = queued;
    const done = async () =>
      ["completed", "incomplete"].includes((polled = await openai.responses.retrieve(queued.id)).status ?? "");
    await waitFor("the background response is done", done);
    expect(polled.output_text).toBe((await nativeRecord(queued.id)).reply);
  });

  it("when a background stream is resumed with starting_after, then it sends only the events after it", async () => {
    const first: ResponseStreamEvent[] = [];
    const stream = await openai.responses.create({ model: "default", input: STORY, background: true, stream: true });
    for await (const event of stream) {
      first.push(event);
      if (event.type === "response.output_text.delta") break;
    }
    const id = (first[0] as { response: { id: string } }).response.id;
    const after = first.at(-1)?.sequence_number ?? 0;
    const rest: ResponseStreamEvent[] = [];
    for await (const event of await openai.responses.retrieve(id, { stream: true, starting_after: after }))
      rest.push(event);
    expect(rest.every((event) => event.sequence_number > after)).toBe(true);
    const deltas = [...first, ...rest].flatMap((event) =>
      event.type === "response.output_text.delta" ? [event.delta] : [],
    );
    expect(deltas.join("")).toBe((await nativeRecord(id)).reply);
  });

  it("when a background response is cancelled, then it says cancelled, as its native record does", async () => {
    const queued = await openai.responses.create({
      model: "default",
      input: STORY,
      background: true,
      max_output_tokens: 2048,
    });
    const cancelled = await openai.responses.cancel(queued.id);
    const record = await nativeRecord(queued.id);
    if (record.errorCode === "cancelled") expect(cancelled.status).toBe("cancelled");
    else expect(["completed", "incomplete"]).toContain(cancelled.status);
  });

  it("when another key asks for a response, then it is 404 as for an unknown id", async () => {
    const mine = await openai.responses.create({ model: "default", input: STORY, background: true });
    const other = new OpenAI({ baseURL: openai.baseURL, apiKey: await gw.createKey(), maxRetries: 0 });
    await expect(other.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.cancel(mine.id)).rejects.toMatchObject({ status: 404 });
  });

  it.each([
    ["an item of another type", { input: [{ type: "reasoning", id: "rs_1", summary: [] }] }, "input[0].type"],
    [
      "a function call's output without its call",
      { input: [{ type: "function_call_output", call_id: "c", output: "x" }] },
      "input[0].call_id",
    ],
    ["previous_response_id", { input: STORY, previous_response_id: "resp_x" }, "previous_response_id"],
    ["an unknown field", { input: STORY, frobnicate: true }, "frobnicate"],
    ["blank input content", { input: [{ role: "user", content: " " }] }, "input[0].content"],
  ])("when the body holds %s, then it is 400 naming it, and nothing is queued", async (_label, body, param) => {
    const error = await openai.responses.create({ model: "default", ...body } as never).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, param });
  });
});
