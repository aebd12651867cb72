import { describe, expect, it } from "@jest/globals";
import { DEFAULT_VOICE, type GenerationRequest } from "@chorus/contracts";
import { audioMsEstimate, promptTextBytes, promptTokensEstimate, speechAsk, textAsk } from "./budget-estimates.js";

const request = (over: Partial<GenerationRequest> = {}): GenerationRequest => ({
  messages: [
    { role: "You", content: "héllo", index: 0 },
    { role: "Bot", content: "hi", index: 1 },
  ],
  samplingParams: { max_tokens: 150, temperature: 0.7, top_p: 0.9 },
  ...over,
});
const BOUNDS = { defaultMaxTokens: 200, contextTokens: 1024, promptTokens: 50, messageTokens: 6 };

describe("what admission holds of a request", () => {
  it("when the request's text has multi-byte characters and {{char}} macros, then its bytes count them as the worker will expand them", () => {
    const withMacros = request({ botName: "Ana", persona: "{{char}} and {{ char }}", instructions: "be {{CHAR}}" });
    // héllo 6 + hi 2; persona 23 + 2×3; instructions 11 + 3; the bot name 3 times.
    expect(promptTextBytes(withMacros)).toBe(8 + 29 + 14 + 9);
  });

  it("when the model's token bounds are published, then a text request holds its empty prompt, each further message, a token a byte and its max_tokens", () => {
    expect(textAsk(request(), { max_tokens: 40 }, BOUNDS)).toEqual({ tokens: 50 + 6 + 8 + 40, audioMs: 0 });
    // Without the client's max_tokens: the model's default.
    expect(textAsk(request(), {}, BOUNDS).tokens).toBe(50 + 6 + 8 + 200);
  });

  it("when the bound passes the model's context, then the context is held: prompt and reply never exceed it", () => {
    const long = request({ messages: [{ role: "You", content: "x".repeat(5000), index: 0 }] });
    expect(textAsk(long, { max_tokens: 100 }, BOUNDS).tokens).toBe(1024);
  });

  it("when no bounds are published, then the prompt is estimated at 4 characters a token and the reply at the contract's most", () => {
    expect(promptTokensEstimate(request())).toBe(Math.ceil(7 / 4) + 4 * 3);
    expect(textAsk(request(), {}, undefined).tokens).toBe(promptTokensEstimate(request()) + 2048);
  });

  it("when speech is asked, then its audio is held at 12 characters a second of its speed", () => {
    expect(audioMsEstimate(120, 1)).toBe(10_000);
    expect(speechAsk({ text: "a".repeat(24), voice: DEFAULT_VOICE, format: "wav", speed: 2 })).toEqual({
      tokens: 0,
      audioMs: 1000,
    });
    const spoken = textAsk(request({ speak: { format: "wav", speed: 1 } }), { max_tokens: 30 }, BOUNDS);
    expect(spoken.audioMs).toBe(10_000); // 30 tokens × 4 characters / 12 per second
  });
});
