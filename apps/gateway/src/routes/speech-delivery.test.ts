import { describe, expect, it } from "@jest/globals";
import type { Request, Response } from "express";
import { streamsSpeech } from "./speech-delivery.js";

function decide(prefer: string | string[] | undefined, version: [number, number] = [1, 1]) {
  const headers: Record<string, string> = {};
  const varied: string[] = [];
  const req = {
    headers: prefer === undefined ? {} : { prefer },
    httpVersionMajor: version[0],
    httpVersionMinor: version[1],
  } as unknown as Request;
  const res = {
    setHeader: (name: string, value: string) => void (headers[name] = value),
    vary: (name: string) => void varied.push(name),
  } as unknown as Response;
  return { streamed: streamsSpeech(req, res), headers, varied };
}

describe("streamsSpeech", () => {
  it("when nothing is preferred over HTTP/1.1 or later, then speech streams, and the answer varies by Prefer", () => {
    expect(decide(undefined)).toEqual({ streamed: true, headers: {}, varied: ["Prefer"] });
    expect(decide("wait=10").streamed).toBe(true);
    expect(decide("stream=true").streamed).toBe(true);
    expect(decide(undefined, [2, 0]).streamed).toBe(true);
  });

  it.each([
    "stream=false",
    "STREAM = false",
    'stream="false"',
    "respond-async, stream=false",
    "stream=false; charset=x",
    ["wait=3", "stream=false"],
  ])("when Prefer is %j, then the audio comes whole and the preference is said to be applied", (prefer) => {
    expect(decide(prefer)).toEqual({
      streamed: false,
      headers: { "Preference-Applied": "stream=false" },
      varied: ["Prefer"],
    });
  });

  it.each(["stream=falsey", "stream", "nostream=false", 'stream="false'])(
    "when Prefer is %j (not the preference), then speech streams",
    (prefer) => {
      expect(decide(prefer).streamed).toBe(true);
    },
  );

  it("when the request is HTTP/1.0 (no chunked encoding), then the audio comes whole", () => {
    expect(decide(undefined, [1, 0]).streamed).toBe(false);
  });
});
