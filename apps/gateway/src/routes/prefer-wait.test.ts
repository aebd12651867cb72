import { preferredWaitSeconds } from "./prefer-wait.js";

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
