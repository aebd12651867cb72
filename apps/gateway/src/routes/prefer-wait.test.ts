import { ApiError } from "@chorus/contracts";
import { preferredQueueDeadlineMs, preferredWaitSeconds } from "./prefer-wait.js";

describe("preferredWaitSeconds", () => {
  it.each([
    ["wait=10", 10],
    ["wait=0", 0],
    ["WAIT = 5", 5],
    ['wait="7"', 7],
    ["respond-async, wait=12", 12],
    ["wait=3; foo=bar", 3],
    ["handling=lenient,wait=4", 4],
  ])("when Prefer is %j, then the wait is %i seconds", (header, seconds) => {
    expect(preferredWaitSeconds(header)).toBe(seconds);
  });

  it.each(["wait=600", "wait=1000000", 'wait="99999999999"'])(
    "when the client asks for more than 60 seconds (%s), then it gets 60",
    (header) => {
      expect(preferredWaitSeconds(header)).toBe(60);
    },
  );

  it.each([
    undefined,
    "",
    "respond-async",
    "wait",
    "wait=",
    "wait=-1",
    "wait=1.5",
    "wait=soon",
    "waiting=3",
    'wait="5',
    'wait=5"',
  ])("when Prefer is %j, then there is no wait preference", (header) => {
    expect(preferredWaitSeconds(header)).toBeNull();
  });

  it("when Prefer comes as several headers, then the one with wait counts", () => {
    expect(preferredWaitSeconds(["respond-async", "wait=9"])).toBe(9);
  });
});

describe("preferredQueueDeadlineMs", () => {
  it.each([
    [undefined, null],
    ["wait=5", null],
    ["wait-queue=5", 5000],
    ["wait=30, wait-queue=0.5", 500],
    ['wait-queue="12"', 12_000],
    [["respond-async", "wait-queue=86400"], 86_400_000],
  ])("when Prefer is %j, then the deadline is %j ms", (header, ms) => {
    expect(preferredQueueDeadlineMs(header)).toBe(ms);
  });

  it.each(["wait-queue=0", "wait-queue=0.05", "wait-queue=86401", "wait-queue=-1", "wait-queue=soon", "wait-queue="])(
    "when Prefer is %j, then it is refused naming Prefer: wait-queue",
    (header) => {
      let refused: unknown;
      try {
        preferredQueueDeadlineMs(header);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).details?.parameter).toBe("Prefer: wait-queue");
    },
  );
});
