import type { GenerateTextJob } from "@chorus/contracts";
import { resolveSampling } from "./sampling.js";

const job = (sent: GenerateTextJob["clientSampling"], filled = { max_tokens: 150, temperature: 0.7, top_p: 0.9 }): GenerateTextJob => ({
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
    expect(resolveSampling(job({}), modelDefaults)).toEqual({ maxTokens: 300, temperature: 1.1, topP: 0.95 });
  });

  it("when the client sent some fields, then those win and the rest come from the model", () => {
    expect(resolveSampling(job({ temperature: 0.2 }), modelDefaults)).toEqual({ maxTokens: 300, temperature: 0.2, topP: 0.95 });
  });

  it("when a job predates clientSampling, then its validated values are used as they are", () => {
    expect(resolveSampling(job(undefined, { max_tokens: 42, temperature: 0.5, top_p: 0.8 }), modelDefaults)).toEqual({ maxTokens: 42, temperature: 0.5, topP: 0.8 });
  });
});
