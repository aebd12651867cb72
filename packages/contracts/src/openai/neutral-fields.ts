/**
 * OpenAI request fields the text job has no counterpart for. Each is accepted at the value that
 * changes nothing (and `null`, OpenAI's "not set"); any other value is refused with 400 saying why,
 * rather than silently answering something other than what was asked. docs/api.md lists them.
 */
interface NeutralOnly {
  accepts: (value: unknown) => boolean;
  why: string;
}

const isEmptyArray = (value: unknown) => Array.isArray(value) && value.length === 0;
const never = () => false;

export const NEUTRAL_ONLY_FIELDS: Readonly<Record<string, NeutralOnly>> = {
  n: { accepts: (value) => value === 1, why: "n must be 1: a completion here has exactly one choice" },
  logprobs: { accepts: (value) => value === false, why: "logprobs are not supported (only false)" },
  top_logprobs: { accepts: (value) => value === 0, why: "top_logprobs is not supported (only 0)" },
  functions: { accepts: isEmptyArray, why: "functions (deprecated) are not supported: send them as tools" },
  function_call: {
    accepts: (value) => value === "none" || value === "auto",
    why: "function_call (deprecated) must be 'none' or 'auto': send tools and tool_choice instead",
  },
  modalities: {
    accepts: (value) => Array.isArray(value) && value.every((m) => m === "text"),
    why: "modalities must be ['text']; for speech use POST /v1/audio/speech",
  },
  audio: { accepts: never, why: "audio output is not supported here; use POST /v1/audio/speech" },
  prediction: { accepts: never, why: "prediction (predicted outputs) is not supported" },
  reasoning_effort: {
    accepts: never,
    why: "reasoning_effort is not supported: the models here do not reason in a separate phase",
  },
  web_search_options: { accepts: never, why: "web search is not supported" },
  verbosity: { accepts: never, why: "verbosity is not supported" },
};

/** Fields read and dropped: they describe the caller or ask for storage this service does not offer. */
export const IGNORED_FIELDS = [
  "user",
  "metadata",
  "store",
  "service_tier",
  "safety_identifier",
  "prompt_cache_key",
  "parallel_tool_calls",
] as const;
