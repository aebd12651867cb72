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

  it("when the client asks for more than 60 seconds, then it gets 60", () => {
    expect(preferredWaitSeconds("wait=600")).toBe(60);
  });

  it.each([undefined, "", "respond-async", "wait", "wait=", "wait=-1", "wait=1.5", "wait=soon", "waiting=3"])("when Prefer is %j, then there is no wait preference", (header) => {
    expect(preferredWaitSeconds(header)).toBeNull();
  });

  it("when Prefer comes as several headers, then the one with wait counts", () => {
    expect(preferredWaitSeconds(["respond-async", "wait=9"])).toBe(9);
  });
});
