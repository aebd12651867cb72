import { ApiError } from "../errors.js";
import type { ResponseFormat, ResponseFormatType } from "./response-format.js";
import { knobsSet, type SamplingKnob, type SamplingKnobs } from "./sampling-knobs.js";

/**
 * What a model's engine honours beyond the contract's sampling fields. Workers publish it per model
 * (the gateway refuses at admission what the engine cannot do) and check it again before they run a job.
 */
export interface EngineFeatures {
  sampling: SamplingKnob[];
  responseFormats: ResponseFormatType[];
  /** What bounds the tokens of a request to this model, for admission to hold (absent from older workers). */
  tokenBounds?: TokenBounds;
  /** Function calling (/v1 `tools`); absent (a worker of an earlier release): not honoured. */
  tools?: boolean;
  /** A prompt read as it is, without the chat template (/v1/completions); absent: not honoured. */
  rawPrompt?: boolean;
}

/**
 * What the worker serving a model knows of a request's tokens before it runs: admission holds a
 * token budget's share from it (docs/usage.md). Measured with the model's own tokenizer.
 */
export interface TokenBounds {
  /** The reply's max_tokens where a native request sends none: the model's configured default. */
  defaultMaxTokens: number;
  /** Prompt and reply together never exceed it (the engine's context per generation). */
  contextTokens: number;
  /** The prompt of a conversation of one empty message: chat template and the character's own system turn. */
  promptTokens: number;
  /** The most each further message adds besides its text (whose tokens are at most its UTF-8 bytes). */
  messageTokens: number;
}

/** What a request asks of an engine beyond the contract. */
export interface AskedFeatures {
  sampling: SamplingKnobs;
  responseFormat?: ResponseFormat | undefined;
  tools?: boolean;
  rawPrompt?: boolean;
}

/**
 * 400 naming the first field `features` cannot honour; `prefix` is where sampling fields sit in the
 * body (`samplingParams.` on /api, nothing on /v1), `formatParam` the response format's field.
 */
export function refuseUnsupported(
  asked: AskedFeatures,
  features: EngineFeatures,
  names: { samplingPrefix: string; formatParam: string },
): void {
  const knob = knobsSet(asked.sampling).find((k) => !features.sampling.includes(k));
  if (knob)
    throw ApiError.invalidParameter(
      `${names.samplingPrefix}${knob}`,
      "absent",
      `${knob} is not supported by this model's engine (it supports: ${features.sampling.join(", ") || "none of the extra sampling fields"})`,
    );
  const format = asked.responseFormat?.type;
  if (format && !features.responseFormats.includes(format))
    throw ApiError.invalidParameter(
      names.formatParam,
      "absent",
      `structured output (${format}) is not supported by this model's engine`,
    );
  if (asked.tools && features.tools !== true)
    throw ApiError.invalidParameter(
      "tools",
      "absent",
      "tools (function calling) are not supported by this model's engine",
    );
  if (asked.rawPrompt && features.rawPrompt !== true)
    throw ApiError.invalidParameter(
      "prompt",
      "absent",
      "text completion (a prompt without the chat template) is not supported by this model's engine; use /v1/chat/completions",
    );
}
