import { ApiError } from "../errors.js";
import { REQUEST_LIMITS, SAMPLING_BOUNDS } from "../limits.js";
import type { GenerationRequest, SamplingParams } from "../text/generation-request.js";
import { compileValidator } from "../validation/validator.js";
import { chatCompletionRequestSchema } from "./chat-completion-request.schema.js";
import { mapChatMessages, refuseNonTextParts } from "./map-chat-messages.js";
import { mapSamplingKnobs, mapTemperature } from "./map-sampling.js";
import { mapResponseFormat, refuseInvalidResponseFormat, type ChatResponseFormat } from "./map-structured-output.js";
import { mapTools, refuseInvalidTools, type ChatTool, type ChatToolChoice } from "./map-tools.js";
import { NEUTRAL_ONLY_FIELDS } from "./neutral-fields.js";
import type { ChatCompletionRequest } from "./openai-shapes.js";

const validateChatRequest = compileValidator<ChatCompletionRequest>(chatCompletionRequestSchema);

/** What a chat completion request asks of the text job, and how the client wants the answer. */
export interface MappedChatRequest {
  request: GenerationRequest;
  /** The sampling fields the client set (the worker fills the rest from the model's defaults). */
  clientSampling: Partial<SamplingParams>;
  stream: boolean;
  includeUsage: boolean;
}

function refuseNonNeutral(body: ChatCompletionRequest): void {
  for (const [field, rule] of Object.entries(NEUTRAL_ONLY_FIELDS)) {
    const value = body[field];
    if (value !== undefined && value !== null && !rule.accepts(value))
      throw ApiError.invalidParameter(field, "neutral value", rule.why);
  }
  if (body.stream_options != null && body.stream !== true) {
    throw ApiError.invalidParameter("stream_options", "null", "stream_options is only allowed when stream is true");
  }
}

/** The sampling fields the client set, in the job's terms. */
function sentSampling(body: ChatCompletionRequest, limits: ChatLimits): Partial<SamplingParams> {
  const { max_tokens, max_completion_tokens, temperature, top_p, seed } = body;
  if (max_tokens != null && max_completion_tokens != null && max_tokens !== max_completion_tokens) {
    throw ApiError.invalidParameter(
      "max_completion_tokens",
      "integer",
      "max_tokens and max_completion_tokens differ; send one of them",
    );
  }
  const sent: Partial<SamplingParams> = mapSamplingKnobs(body);
  const maxTokens = max_completion_tokens ?? max_tokens;
  if (maxTokens != null && maxTokens > limits.maxCompletionTokens) {
    const field = max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
    throw ApiError.invalidParameter(
      field,
      "integer",
      `${field} must be at most ${limits.maxCompletionTokens} (this deployment's MAX_COMPLETION_TOKENS)`,
    );
  }
  if (maxTokens != null) sent.max_tokens = maxTokens;
  if (temperature != null) sent.temperature = mapTemperature(temperature);
  if (top_p != null) sent.top_p = top_p;
  if (seed != null) sent.seed = seed;
  return sent;
}

/** The client's stop sequences as a list (one string is a list of one); none: undefined. */
function stopSequences(stop: ChatCompletionRequest["stop"]): string[] | undefined {
  const list = typeof stop === "string" ? [stop] : (stop ?? []);
  return list.length > 0 ? list : undefined;
}

const STOP_RULE = `stop must be a string or a list of at most ${REQUEST_LIMITS.maxStopSequences} strings, each of 1-${REQUEST_LIMITS.maxStopChars} characters`;

/** A `stop` the schema would refuse, refused first with the whole rule (the schema names one branch only). */
function refuseInvalidStop(body: unknown): void {
  const stop = (body as { stop?: unknown } | null)?.stop;
  if (stop === undefined || stop === null) return;
  const list: unknown[] = Array.isArray(stop) ? stop : [stop];
  const fits = (sequence: unknown) =>
    typeof sequence === "string" && sequence.length >= 1 && sequence.length <= REQUEST_LIMITS.maxStopChars;
  if (list.length > REQUEST_LIMITS.maxStopSequences || !list.every(fits))
    throw ApiError.invalidParameter("stop", "string or array", STOP_RULE);
}

/** What the deployment allows a chat completion. */
export interface ChatLimits {
  /** A reply's most tokens (MAX_COMPLETION_TOKENS): the bound of max_tokens, and the reply's without it. */
  maxCompletionTokens: number;
}

/** The limits of a deployment that sets none (MAX_COMPLETION_TOKENS' default). */
export const DEFAULT_CHAT_LIMITS: ChatLimits = { maxCompletionTokens: 4096 };

/** Validates an OpenAI chat completion body (400s name the field) and maps it onto the text job. */
export function mapChatCompletionRequest(body: unknown, limits = DEFAULT_CHAT_LIMITS): MappedChatRequest {
  refuseNonTextParts(body);
  refuseInvalidStop(body);
  refuseInvalidResponseFormat(body);
  refuseInvalidTools(body);
  const chat = validateChatRequest(body);
  refuseNonNeutral(chat);
  const clientSampling = sentSampling(chat, limits);
  const samplingParams: SamplingParams = {
    max_tokens: SAMPLING_BOUNDS.maxTokens.default,
    temperature: SAMPLING_BOUNDS.temperature.default,
    top_p: SAMPLING_BOUNDS.topP.default,
    ...clientSampling,
  };
  const stop = stopSequences(chat.stop);
  const responseFormat = mapResponseFormat(chat.response_format as ChatResponseFormat | undefined);
  const tools = mapTools(chat.tools as ChatTool[] | null | undefined, chat.tool_choice as ChatToolChoice | undefined);
  // A reply constrained to a JSON form could never be a call.
  if (tools && responseFormat)
    throw ApiError.invalidParameter(
      "response_format",
      "null",
      "response_format cannot be combined with tools; send one",
    );
  const request: GenerationRequest = {
    ...mapChatMessages(chat.messages),
    ...(stop ? { stop } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(tools ? { tools } : {}),
    contextFit: { ceiling: limits.maxCompletionTokens },
    samplingParams,
  };
  return {
    request,
    clientSampling,
    stream: chat.stream === true,
    includeUsage: chat.stream_options?.include_usage === true,
  };
}
