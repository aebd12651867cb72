import { describe, expect, it } from "@jest/globals";
import type { GenerateTextJob } from "@chorus/contracts";
import type { LlmEngine } from "../engines/llm/llm-engine.js";
import { GenerationFailure } from "../records/failure-message.js";
import { refuseWhatEngineLacks } from "./sampling.js";

const job = (request: Partial<GenerateTextJob["request"]> = {}): GenerateTextJob => ({
  requestId: "r",
  keyId: "k",
  model: "default",
  acceptedAt: 0,
  request: { messages: [], samplingParams: { max_tokens: 9, temperature: 0.7, top_p: 0.9 }, ...request },
});
const sampling = { maxTokens: 9, temperature: 0.7, topP: 0.9, seed: 1 };
const engine = (features?: LlmEngine["features"]) => ({ features }) as LlmEngine;

describe("refuseWhatEngineLacks", () => {
  it("when the engine has no features and a knob is set, then the job fails as invalid_request naming it", () => {
    const run = () => refuseWhatEngineLacks({ ...sampling, knobs: { min_p: 0.1 } }, job(), engine());
    expect(run).toThrow(GenerationFailure);
    expect(run).toThrow(/min_p is not supported/);
    try {
      run();
    } catch (error) {
      expect((error as GenerationFailure).code).toBe("invalid_request");
    }
  });

  it("when the engine cannot constrain JSON, then a response format fails the job", () => {
    const asked = job({ responseFormat: { type: "json_object" } });
    expect(() => refuseWhatEngineLacks(sampling, asked, engine({ sampling: [], responseFormats: [] }))).toThrow(
      /structured output/,
    );
  });

  it("when the engine honours everything asked, then the job goes on", () => {
    const features = { sampling: ["min_p" as const], responseFormats: ["json_object" as const] };
    const asked = job({ responseFormat: { type: "json_object" } });
    expect(() => refuseWhatEngineLacks({ ...sampling, knobs: { min_p: 0.1 } }, asked, engine(features))).not.toThrow();
  });
});
