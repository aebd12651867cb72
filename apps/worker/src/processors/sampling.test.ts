import { describe, expect, it } from "@jest/globals";
import type { GenerateTextJob } from "@chorus/contracts";
import { resolveSampling } from "./sampling.js";

const job = (
  sent: GenerateTextJob["clientSampling"],
  filled = { max_tokens: 150, temperature: 0.7, top_p: 0.9 },
): GenerateTextJob => ({
  requestId: "r",
  keyId: "k",
  model: "Witch",
  acceptedAt: 0,
  request: { botName: "W", messages: [], samplingParams: { ...filled, ...sent } },
  ...(sent === undefined ? {} : { clientSampling: sent }),
});
const modelDefaults = { max_tokens: 300, temperature: 1.1, top_p: 0.95 };

describe("resolveSampling", () => {
  it("when the client sent nothing, then the model's configured defaults apply", () => {
    expect(resolveSampling(job({}), modelDefaults)).toEqual({
      maxTokens: 300,
      temperature: 1.1,
      topP: 0.95,
      seed: expect.any(Number),
      knobs: {},
      reproducible: false,
    });
  });

  it("when the client sent some fields, then those win and the rest come from the model", () => {
    expect(resolveSampling(job({ temperature: 0.2 }), modelDefaults)).toEqual({
      maxTokens: 300,
      temperature: 0.2,
      topP: 0.95,
      seed: expect.any(Number),
      knobs: {},
      reproducible: false,
    });
  });

  it("when a job predates clientSampling, then its validated values are used as they are", () => {
    expect(resolveSampling(job(undefined, { max_tokens: 42, temperature: 0.5, top_p: 0.8 }), modelDefaults)).toEqual({
      maxTokens: 42,
      temperature: 0.5,
      topP: 0.8,
      seed: expect.any(Number),
      knobs: {},
      reproducible: false,
    });
  });

  it("when the client sent a seed, then it is used as it is", () => {
    expect(resolveSampling(job({ seed: 0 }), modelDefaults).seed).toBe(0);
    expect(resolveSampling(job({ seed: 2 ** 32 - 1 }), modelDefaults).seed).toBe(2 ** 32 - 1);
  });

  it("when no seed was sent, then each job draws its own integer seed from 0 to 2^32-1", () => {
    const seeds = Array.from({ length: 50 }, () => resolveSampling(job({}), modelDefaults).seed);
    for (const seed of seeds) expect(Number.isInteger(seed) && seed >= 0 && seed <= 2 ** 32 - 1).toBe(true);
    expect(new Set(seeds).size).toBeGreaterThan(45);
  });

  it("when the job has only the seed drawn at submit, then it is not reproducible (cache reuse stays on)", () => {
    const drawn = { ...job({ temperature: 0.7 }), seed: 1234 };
    expect(resolveSampling(drawn, modelDefaults)).toMatchObject({ seed: 1234, reproducible: false });
  });

  it("when the client sent a seed or temperature 0, then the reply must be reproducible", () => {
    expect(resolveSampling(job({ seed: 5 }), modelDefaults).reproducible).toBe(true);
    expect(resolveSampling(job({ temperature: 0 }), modelDefaults).reproducible).toBe(true);
    expect(
      resolveSampling(job(undefined, { max_tokens: 9, temperature: 0.5, top_p: 1, seed: 3 } as never), modelDefaults)
        .reproducible,
    ).toBe(true);
  });

  it("when the client set extra sampling fields, then they reach the engine (neutral ones left out)", () => {
    const knobs = resolveSampling(
      job({ top_k: 5, presence_penalty: 0, logit_bias: { "7": -100 } }),
      modelDefaults,
    ).knobs;
    expect(knobs).toEqual({ top_k: 5, logit_bias: { "7": -100 } });
  });
});
