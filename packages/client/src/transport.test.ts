import { ChorusError } from "./errors.js";
import { DEFAULT_RETRY_POLICY } from "./retry.js";
import { Transport, type FetchLike } from "./transport.js";
import { envelope, json, networkError, scriptedFetch } from "./transport.test-helpers.js";

function transport(fetch: FetchLike, slept: number[] = [], maxRetries = 3) {
  const sleep = (ms: number, signal?: AbortSignal) => {
    slept.push(ms);
    signal?.throwIfAborted();
    return Promise.resolve();
  };
  return new Transport({
    baseUrl: "http://api.test",
    apiKey: "k1",
    fetch,
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries, baseDelayMs: 100 },
    sleep,
    random: () => 0,
  });
}

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as ChorusError,
  );

describe("Transport retries", () => {
  it("when a call gets 429 with Retry-After, then it waits that long and tries again", async () => {
    const { fetch, sent } = scriptedFetch([
      envelope(429, "RATE_LIMITED", { "retry-after": "2" }),
      json(200, { ok: true }),
    ]);
    const slept: number[] = [];
    expect(await transport(fetch, slept).json({ path: "/x" })).toEqual({ ok: true });
    expect(sent).toHaveLength(2);
    expect(slept).toEqual([2000]);
    expect(sent[0]?.headers).toMatchObject({ authorization: "Bearer k1", accept: "application/json" });
  });

  it("when 503s and network errors come, then they are retried with growing backoff until an answer", async () => {
    const { fetch, sent } = scriptedFetch([
      envelope(503, "SERVICE_UNAVAILABLE"),
      networkError(),
      envelope(500, "INTERNAL_ERROR"),
      json(200, 1),
    ]);
    const slept: number[] = [];
    expect(await transport(fetch, slept).json({ path: "/x" })).toBe(1);
    expect(sent).toHaveLength(4);
    expect(slept).toEqual([50, 100, 200]);
  });

  it("when a 4xx other than 429 comes, then it is thrown at once as ChorusError with the envelope's fields", async () => {
    const body = {
      error: { code: "INVALID_PARAMETER", message: "bad", details: { parameter: "messages" } },
      status: "error",
    };
    const { fetch, sent } = scriptedFetch([json(400, body)]);
    const error = await caught(transport(fetch).json({ path: "/x" }));
    expect(error).toBeInstanceOf(ChorusError);
    expect(error).toMatchObject({
      status: 400,
      code: "INVALID_PARAMETER",
      message: "bad",
      details: { parameter: "messages" },
      retryAfter: undefined,
    });
    expect(error.requestFailed).toBe(false);
    expect(sent).toHaveLength(1);
  });

  it("when every attempt fails, then the last error is thrown with its retryAfter", async () => {
    const { fetch, sent } = scriptedFetch(
      Array.from({ length: 3 }, () => envelope(429, "RATE_LIMITED", { "retry-after": "1" })),
    );
    const error = await caught(transport(fetch, [], 2).json({ path: "/x" }));
    expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfter: 1 });
    expect(sent).toHaveLength(3);
  });

  it("when Retry-After is longer than the client waits, then the error is thrown without a retry", async () => {
    const { fetch, sent } = scriptedFetch([envelope(503, "SERVICE_UNAVAILABLE", { "retry-after": "3600" })]);
    expect(await caught(transport(fetch).json({ path: "/x" }))).toMatchObject({ status: 503, retryAfter: 3600 });
    expect(sent).toHaveLength(1);
  });

  it("when the network never answers, then NETWORK_ERROR is thrown with the cause", async () => {
    const { fetch } = scriptedFetch([networkError(), networkError()]);
    const error = await caught(transport(fetch, [], 1).json({ path: "/x" }));
    expect(error).toMatchObject({ code: "NETWORK_ERROR", status: undefined });
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it("when a proxy answers without the envelope, then INVALID_RESPONSE with the status (5xx still retried)", async () => {
    const page = () =>
      new Response("<html>Bad Gateway</html>", { status: 502, headers: { "content-type": "text/html" } });
    const { fetch, sent } = scriptedFetch([page, page]);
    expect(await caught(transport(fetch, [], 1).json({ path: "/x" }))).toMatchObject({
      status: 502,
      code: "INVALID_RESPONSE",
    });
    expect(sent).toHaveLength(2);
  });

  it("when a 200 body is not JSON, then INVALID_RESPONSE without a retry", async () => {
    const { fetch, sent } = scriptedFetch([() => new Response("nope", { status: 200 })]);
    expect(await caught(transport(fetch).json({ path: "/x" }))).toMatchObject({
      status: 200,
      code: "INVALID_RESPONSE",
    });
    expect(sent).toHaveLength(1);
  });

  it("when the signal aborts between attempts, then the call rejects with its reason and sends nothing more", async () => {
    const controller = new AbortController();
    const { fetch, sent } = scriptedFetch([
      () => {
        controller.abort(new Error("user left"));
        return envelope(503, "SERVICE_UNAVAILABLE")();
      },
    ]);
    await expect(transport(fetch).json({ path: "/x", signal: controller.signal })).rejects.toThrow("user left");
    expect(sent).toHaveLength(1);
  });

  it("when a body is sent, then it goes as JSON with its content type", async () => {
    const { fetch, sent } = scriptedFetch([json(200, {})]);
    await transport(fetch).json({ method: "POST", path: "/y", body: { a: 1 } });
    expect(sent[0]?.init).toMatchObject({ method: "POST", body: '{"a":1}' });
    expect(sent[0]?.headers["content-type"]).toBe("application/json");
    expect(sent[0]?.url).toBe("http://api.test/y");
  });
});
