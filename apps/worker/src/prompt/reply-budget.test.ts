import type { GenerateTextJob } from "@chorus/contracts";
import { GenerationFailure } from "../records/failure-message.js";
import { contextLengthExceeded, replyBudget, replyTokens } from "./reply-budget.js";

const job = (extra: Partial<GenerateTextJob["request"]> = {}, clientSampling = {}): GenerateTextJob => ({
  requestId: "r",
  keyId: "k",
  model: "default",
  acceptedAt: 0,
  clientSampling,
  request: {
    messages: [{ role: "You", content: "Hi", index: 0 }],
    samplingParams: { max_tokens: 150, temperature: 0.7, top_p: 0.9 },
    ...extra,
  },
});

/** The max_tokens sampling resolved (the client's, else the model's default) and the model's default. */
const tokens = (resolved: number, modelDefault = resolved) => ({ resolved, modelDefault });

describe("replyBudget", () => {
  it("when a native job comes, then its max_tokens is reserved whole and is its limit; nothing is refused", () => {
    expect(replyBudget(job(), tokens(150))).toEqual({
      reserve: 150,
      leastReserve: 150,
      limit: 150,
      refuseOverflow: false,
    });
  });

  it("when a /v1 job sets no max_tokens, then the model's default is reserved and the reply may run to the ceiling", () => {
    expect(replyBudget(job({ contextFit: { ceiling: 4096 } }), tokens(150))).toEqual({
      reserve: 150,
      leastReserve: 150,
      limit: 4096,
      refuseOverflow: true,
    });
    expect(replyBudget(job({ contextFit: { ceiling: 100 } }), tokens(150))).toMatchObject({ reserve: 100, limit: 100 });
  });

  it("when a /v1 job sets max_tokens, then that is reserved where it fits, at least the model's default, and is its limit", () => {
    expect(replyBudget(job({ contextFit: { ceiling: 4096 } }, { max_tokens: 900 }), tokens(900, 150))).toEqual({
      reserve: 900,
      leastReserve: 150,
      limit: 900,
      refuseOverflow: true,
    });
    expect(replyBudget(job({ contextFit: { ceiling: 4096 } }, { max_tokens: 40 }), tokens(40, 150))).toMatchObject({
      reserve: 40,
      leastReserve: 40,
    });
  });
});

describe("replyTokens", () => {
  const budget = { reserve: 150, leastReserve: 150, limit: 4096, refuseOverflow: true };

  it("when the context has less room than the limit, then the reply gets the room (one token stays free)", () => {
    expect(replyTokens(budget, 1024, 300)).toBe(1024 - 300 - 1);
  });

  it("when the context has more room than the limit, then the reply gets the limit", () => {
    expect(replyTokens({ ...budget, limit: 60 }, 1024, 300)).toBe(60);
  });

  it("when the prompt alone fills the context, then the limit stays (the engine cuts the prompt, as before)", () => {
    expect(replyTokens({ ...budget, limit: 150 }, 1024, 1100)).toBe(150);
  });
});

describe("contextLengthExceeded", () => {
  it("when made, then it is a final context_length_exceeded failure naming the context's size", () => {
    const failure = contextLengthExceeded(1024, 1500, 150);
    expect(failure).toBeInstanceOf(GenerationFailure);
    expect(failure.code).toBe("context_length_exceeded");
    expect(failure.message).toContain("maximum context length is 1024 tokens");
  });
});
