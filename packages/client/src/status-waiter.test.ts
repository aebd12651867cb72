import { DEFAULT_RETRY_POLICY } from "./retry.js";
import { StatusWaiter } from "./status-waiter.js";
import { Transport } from "./transport.js";
import { json, scriptedFetch, sse, statusEvent } from "./transport.test-helpers.js";

const settings = {
  stream: true,
  pollWaitSeconds: 5,
  pollIntervalMs: 1,
  firstEventTimeoutMs: 50,
  idleTimeoutMs: 100,
  retry: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1 },
};
const generating = { status: "processing", progress: 0.5 };
const completed = { status: "completed", reply: "Done.", tokens: 2 };

function waiter(script: Parameters<typeof scriptedFetch>[0]) {
  const { fetch, sent } = scriptedFetch(script);
  const transport = new Transport({ baseUrl: "http://api.test", apiKey: "k", fetch, retry: settings.retry });
  return { run: () => new StatusWaiter(transport, settings, { id: "r1" }).run(), sent };
}

describe("StatusWaiter", () => {
  it("when a proxy holds the stream back (no first event in time), then it closes it and polls", async () => {
    const { run, sent } = waiter([sse([], "hang"), json(200, completed, { "preference-applied": "wait=5" })]);
    expect(await run()).toEqual(completed);
    expect(sent[0]?.init.signal?.aborted).toBe(true);
    expect(sent[1]?.headers.prefer).toBe("wait=5");
  });

  it("when an open stream goes silent past the idle limit, then it reconnects with Last-Event-ID", async () => {
    const { run, sent } = waiter([sse([statusEvent(9, generating)], "hang"), sse([statusEvent(10, completed)])]);
    expect(await run()).toEqual(completed);
    expect(sent[0]?.init.signal?.aborted).toBe(true);
    expect(sent[1]?.headers["last-event-id"]).toBe("9");
  });

  it("when a server ignores Prefer: wait, then polls are spaced instead of back to back", async () => {
    const { run, sent } = waiter([json(200, generating), json(200, generating), json(200, completed)]);
    expect(await run()).toEqual(completed);
    expect(sent).toHaveLength(3);
  });
});
