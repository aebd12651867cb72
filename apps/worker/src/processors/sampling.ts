import { randomInt } from "node:crypto";
import {
  ApiError,
  knobsSet,
  refuseUnsupported,
  SAMPLING_BOUNDS,
  type GenerateTextJob,
  type SamplingParams,
} from "@chorus/contracts";
import type { LlmEngine, SamplingOptions } from "../engines/llm/llm-engine.js";
import { GenerationFailure } from "../records/failure-message.js";

const NO_FEATURES = { sampling: [], responseFormats: [] };

/**
 * Fails the job at once (invalid_request: /v1 answers 400) when its engine cannot honour what it
 * asks: the gateway refuses such requests when a worker has published the model's features, but the
 * job may reach a worker configured otherwise. Never silently ignored.
 */
export function refuseWhatEngineLacks(sampling: SamplingOptions, job: GenerateTextJob, engine: LlmEngine): void {
  try {
    refuseUnsupported(
      {
        sampling: sampling.knobs ?? {},
        responseFormat: job.request.responseFormat,
        tools: job.request.tools !== undefined,
        rawPrompt: job.request.prompt !== undefined,
      },
      engine.features ?? NO_FEATURES,
      { samplingPrefix: "", formatParam: "response_format" },
    );
  } catch (error) {
    if (error instanceof ApiError) throw new GenerationFailure("invalid_request", error.message);
    throw error;
  }
}

/**
 * What the client sent wins; where it sent nothing, the model's configured defaults replace the
 * spec's (which validation filled in). Jobs from before `clientSampling` existed keep their values.
 * Without a seed each job has its own, drawn at submit (else here), so identical requests get
 * independent replies and every attempt of one job samples alike.
 */
export function resolveSampling(job: GenerateTextJob, modelDefaults: SamplingParams): SamplingOptions {
  const params = job.clientSampling
    ? { ...job.request.samplingParams, ...modelDefaults, ...job.clientSampling }
    : job.request.samplingParams;
  const seed = params.seed ?? job.seed ?? randomInt(SAMPLING_BOUNDS.seed.min, SAMPLING_BOUNDS.seed.max + 1);
  const knobs = Object.fromEntries(knobsSet(params).map((knob) => [knob, params[knob]]));
  // The seed drawn at submit (job.seed) is the service's, not a promise to the client.
  const clientSeeded = (job.clientSampling ?? job.request.samplingParams).seed !== undefined;
  const reproducible = clientSeeded || params.temperature === 0;
  return {
    maxTokens: params.max_tokens,
    temperature: params.temperature,
    topP: params.top_p,
    seed,
    knobs,
    reproducible,
  };
}
