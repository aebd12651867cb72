import { randomInt } from "node:crypto";
import { SAMPLING_BOUNDS, type GenerateTextJob, type SamplingParams } from "@chorus/contracts";
import type { SamplingOptions } from "../engines/llm/llm-engine.js";

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
  return { maxTokens: params.max_tokens, temperature: params.temperature, topP: params.top_p, seed };
}
