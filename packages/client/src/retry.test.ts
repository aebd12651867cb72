import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs, sleep } from "./retry.js";

const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };

describe("retry delays", () => {
  it("when there is no Retry-After, then the delay doubles per attempt between half and all of the step, capped", () => {
    expect([0, 1, 2, 3, 4, 10].map((attempt) => retryDelayMs(attempt, undefined, policy, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
    expect([0, 1, 2, 3, 4, 10].map((attempt) => retryDelayMs(attempt, undefined, policy, () => 0.999999))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
  });

  it("when the server sent Retry-After, then the delay is at least that long, plus less than one base delay of jitter", () => {
    expect(retryDelayMs(0, 3, policy, () => 0)).toBe(3000);
    expect(retryDelayMs(5, 3, policy, () => 0.999999)).toBe(3099);
  });

  it("when Retry-After is seconds or an HTTP date, then it is read as seconds; otherwise it is ignored", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:00:05 GMT", now)).toBe(5);
    expect(parseRetryAfter("Thu, 01 Jan 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-3", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it("when the signal aborts during a sleep, then the sleep rejects with its reason at once", async () => {
    const controller = new AbortController();
    const slept = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(slept).rejects.toThrow("stop");
  });
});
