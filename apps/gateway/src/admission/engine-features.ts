import { refuseUnsupported, type GenerationRequest, type SamplingParams } from "@chorus/contracts";
import type { ModelFeatures } from "@chorus/platform/scheduler";

/** Where a door's body holds the sampling fields and the response format (named in a 400). */
export interface FeatureFieldNames {
  samplingPrefix: string;
  formatParam: string;
}

export const NATIVE_FEATURE_FIELDS: FeatureFieldNames = {
  samplingPrefix: "samplingParams.",
  formatParam: "responseFormat",
};
export const OPENAI_FEATURE_FIELDS: FeatureFieldNames = { samplingPrefix: "", formatParam: "response_format" };
export const RESPONSES_FEATURE_FIELDS: FeatureFieldNames = { samplingPrefix: "", formatParam: "text.format" };

/**
 * 400 naming a field the model's engine cannot honour (an extra sampling field, a response format,
 * tools, a raw prompt),
 * as its workers published. Until a worker has published the model's features the request goes on:
 * the worker then refuses the job itself (invalid_request), never ignoring the field.
 */
export async function refuseWhatModelLacks(
  features: ModelFeatures,
  model: string,
  read: { request: GenerationRequest; clientSampling: Partial<SamplingParams>; featureFields?: FeatureFieldNames },
): Promise<void> {
  const published = await features.of(model);
  if (!published) return;
  const { request } = read;
  const asked = {
    sampling: read.clientSampling,
    responseFormat: request.responseFormat,
    tools: request.tools !== undefined,
    rawPrompt: request.prompt !== undefined,
  };
  refuseUnsupported(asked, published, read.featureFields ?? NATIVE_FEATURE_FIELDS);
}
