import type { EngineFeatures, ResponseFormat, SamplingKnob, ToolsRequest } from "@chorus/contracts";
import type { GenerationInput } from "./llm-engine.js";

/** Knobs OpenAI's API defines: every compatible server takes them. */
const OPENAI_KNOBS: SamplingKnob[] = ["presence_penalty", "frequency_penalty", "logit_bias"];

/** Knobs beyond OpenAI's that a server may take (vLLM, llama-server, SGLang): named per engine in MODELS_CONFIG. */
export const EXTENSION_KNOBS = ["top_k", "min_p", "repetition_penalty", "typical_p"] as const;
export type ExtensionKnob = (typeof EXTENSION_KNOBS)[number];

/**
 * What a compatible server takes: OpenAI's knobs and the listed extensions, both response formats,
 * tools, and raw prompts (its `/v1/completions`) unless the operator says it has none.
 */
export function openAiCompatibleFeatures(
  extensions: readonly ExtensionKnob[] = [],
  completions = true,
): EngineFeatures {
  return {
    sampling: [...OPENAI_KNOBS, ...extensions],
    responseFormats: ["json_object", "json_schema"],
    tools: true,
    rawPrompt: completions,
  };
}

/** OpenAI's response_format for the job's. */
function responseFormatField(format: ResponseFormat): object {
  if (format.type === "json_object") return { type: "json_object" };
  const { name, schema, strict } = format;
  return {
    type: "json_schema",
    json_schema: { name: name ?? "response", schema, ...(strict === undefined ? {} : { strict }) },
  };
}

/** The job's tools as OpenAI's `tools` and `tool_choice`: the server decides and constrains calls itself. */
function toolFields(tools: ToolsRequest): Record<string, unknown> {
  const { choice } = tools;
  return {
    tools: tools.functions.map((fn) => ({ type: "function", function: fn })),
    tool_choice: typeof choice === "object" ? { type: "function", function: { name: choice.name } } : choice,
    parallel_tool_calls: false,
  };
}

/** The request's knobs (under OpenAI's and the extensions' own names), response format and tools, as sent upstream. */
export function upstreamSamplingFields(input: GenerationInput): Record<string, unknown> {
  const knobs = Object.entries(input.sampling.knobs ?? {}).filter(([, value]) => value !== undefined);
  return {
    ...Object.fromEntries(knobs),
    ...(input.responseFormat ? { response_format: responseFormatField(input.responseFormat) } : {}),
    ...(input.tools ? toolFields(input.tools) : {}),
  };
}
