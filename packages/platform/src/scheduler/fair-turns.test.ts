import { describe, expect, it } from "@jest/globals";
import type { GenerationRequest } from "@chorus/contracts";
import {
  BATCH_TURN_WEIGHT,
  batchTurns,
  estimatedTurnCost,
  measuredTurnCost,
  TOKENS_PER_TURN,
  turnsForTokens,
} from "./fair-turns.js";

const request = (content: string, maxTokens: number, extra: Partial<GenerationRequest> = {}): GenerationRequest => ({
  messages: [{ role: "You", content, index: 0 }],
  samplingParams: { max_tokens: maxTokens, temperature: 0.7, top_p: 0.9 },
  ...extra,
});

describe("what requests cost in fair turns", () => {
  it("when tokens fill turns, then each started turn counts whole, and no request costs less than one turn", () => {
    expect(turnsForTokens(0)).toBe(1);
    expect(turnsForTokens(-5)).toBe(1);
    expect(turnsForTokens(1)).toBe(1);
    expect(turnsForTokens(TOKENS_PER_TURN)).toBe(1);
    expect(turnsForTokens(TOKENS_PER_TURN + 1)).toBe(2);
    expect(turnsForTokens(4096)).toBe(4096 / TOKENS_PER_TURN);
  });

  it("when admission estimates a request, then it counts about four characters a token of its text plus its max_tokens", () => {
    // 10 characters (3 tokens) + 8: one turn; 400 characters (100 tokens) + 2048: 2148 tokens.
    expect(estimatedTurnCost(request("0123456789", 8))).toBe(1);
    expect(estimatedTurnCost(request("x".repeat(400), 2048))).toBe(Math.ceil(2148 / TOKENS_PER_TURN));
    // The persona and /v1's instructions are text the engine evaluates too.
    const withSystem = request("x".repeat(400), 2048, { persona: "p".repeat(256), instructions: "i".repeat(256) });
    expect(estimatedTurnCost(withSystem)).toBe(Math.ceil((2148 + 128) / TOKENS_PER_TURN));
  });

  it("when a /v1 request sent no max_tokens, then its reply is counted up to its context-fit ceiling, else its own max_tokens", () => {
    const fitted = request("hi", 256, { contextFit: { ceiling: 4096 } });
    expect(estimatedTurnCost(fitted)).toBe(Math.ceil((1 + 4096) / TOKENS_PER_TURN));
    expect(estimatedTurnCost(fitted, { max_tokens: 256 })).toBe(Math.ceil((1 + 256) / TOKENS_PER_TURN));
  });

  it("when a request is measured, then the prompt tokens reused from the cache are not counted, the reply's are", () => {
    expect(measuredTurnCost({ promptTokens: 2000, cachedTokens: 0, tokens: 48 })).toBe(2048 / TOKENS_PER_TURN);
    expect(measuredTurnCost({ promptTokens: 2000, cachedTokens: 1990, tokens: 54 })).toBe(1);
    expect(measuredTurnCost({ promptTokens: 10, cachedTokens: 0, tokens: 0 })).toBe(1);
  });

  it("when many large requests meet many small ones, then a large one costs as many turns as the small ones it outweighs", () => {
    const large = estimatedTurnCost(request("x".repeat(8000), 2048)); // a full 4096-token context
    const small = estimatedTurnCost(request("hello there", 16));
    expect(small).toBe(1);
    expect(large).toBe(4096 / TOKENS_PER_TURN);
  });
});

describe("batchTurns", () => {
  it("when a batch line joins, then it takes its key's batch tenant and BATCH_TURN_WEIGHT times its cost", () => {
    expect(batchTurns("key_1", 3)).toEqual({ tenant: "key_1:batch", cost: 3 * BATCH_TURN_WEIGHT });
  });
});
