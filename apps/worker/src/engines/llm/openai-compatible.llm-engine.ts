import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { EngineFeatures, ToolCall } from "@chorus/contracts";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "./llm-engine.js";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { CompletionCreateParamsStreaming } from "openai/resources/completions";
import { GenerationFailure } from "../../records/failure-message.js";
import { apiRoot, createUpstreamClient } from "../openai-compatible/upstream-client.js";
import { restartOnBytes } from "../openai-compatible/restart-on-bytes.js";
import { ChatCompletionAccumulator } from "./openai-compatible.stream.js";
import { openAiCompatibleFeatures, upstreamSamplingFields, type ExtensionKnob } from "./openai-compatible.sampling.js";
import { OpenAiCompatibleUpstreamError, retryDelayMs, upstreamError } from "./openai-compatible.upstream-error.js";

export interface OpenAiCompatibleLlmEngineOptions {
  /** The server (`http://host:8000`) or its API root (`http://host:8000/v1`); see chatCompletionsUrl. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; never appears in errors. */
  apiKey?: string;
  /** Longest silence tolerated: waiting for the response, and between two chunks of the stream. */
  timeoutMs?: number;
  /** Further attempts after a retryable failure (429, 408, 5xx, network, silence) before any token. */
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** Bound on any wait between attempts, including one asked for by Retry-After. */
  maxRetryDelayMs?: number;
  /** Stop sequences sent with every request, after the client's own, up to the 4 servers accept. */
  stop?: string[];
  /** Ask for the final usage chunk; turn off for servers that reject `stream_options` (Groq, Mistral). */
  includeUsage?: boolean;
  /** The sampling fields beyond OpenAI's that the server takes (vLLM: all four); others are refused at admission. */
  samplingExtensions?: readonly ExtensionKnob[];
  /**
   * The server answers raw prompts at `/v1/completions` (default true). False: the model's published
   * features say so, and admission refuses `/v1/completions` and native `prompt` requests with a 400.
   */
  completions?: boolean;
  /** The upstream model's context window in tokens (default 8192); used to trim long conversations. */
  contextTokens?: number;
  fetch?: typeof fetch;
  /** Waits between attempts, ended early by the job's signal (default: a timer; tests pass their own). */
  waitBeforeRetry?: (ms: number, signal: AbortSignal) => Promise<unknown>;
}

/** `.../v1` gets `/chat/completions` appended; anything else gets `/v1/chat/completions`. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${apiRoot(baseUrl)}/chat/completions`;
}

/** Restarts on every sign of life; fires once the upstream has been silent for `ms`. */
class IdleTimer {
  fired = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {
    this.restart();
  }

  restart(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.onIdle();
    }, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** Tokens already handed to onProgress in this job; once above zero, nothing is retried. */
interface StreamedSoFar {
  tokens: number;
}

/** Role markers and separators a chat template adds around each turn (a safe over-estimate). */
const ESTIMATED_TURN_TEMPLATE_TOKENS = 8;

/** Stop sequences OpenAI's API takes at most. */
const MAX_UPSTREAM_STOPS = 4;

/** A text engine backed by any server speaking OpenAI's streaming chat completions protocol. */
export class OpenAiCompatibleLlmEngine implements LlmEngine {
  readonly name = "openai-compatible";
  readonly contextTokens: number;
  readonly features: EngineFeatures;
  readonly takesTools = true;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryPolicy: { baseDelayMs: number; maxDelayMs: number };
  private readonly fetch: typeof fetch;
  private readonly waitBeforeRetry: (ms: number, signal: AbortSignal) => Promise<unknown>;
  private closed = false;

  constructor(private readonly options: OpenAiCompatibleLlmEngineOptions) {
    this.contextTokens = options.contextTokens ?? 8192;
    this.features = openAiCompatibleFeatures(options.samplingExtensions, options.completions ?? true);
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryPolicy = { baseDelayMs: options.retryBaseDelayMs ?? 500, maxDelayMs: options.maxRetryDelayMs ?? 30_000 };
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.waitBeforeRetry = options.waitBeforeRetry ?? ((ms, signal) => sleep(ms, undefined, { signal }));
  }

  /** About four characters a token for English text, and a few tokens of template around each turn. */
  countPromptTokens(turns: ChatTurn[]): Promise<number> {
    return Promise.resolve(
      turns.reduce((sum, turn) => sum + Math.ceil(turn.content.length / 4) + ESTIMATED_TURN_TEMPLATE_TOKENS, 0),
    );
  }

  /** The same estimate as countPromptTokens, for a raw prompt (no template around it). */
  countRawPromptTokens(prompt: string): Promise<number> {
    return Promise.resolve(Math.ceil(prompt.length / 4));
  }

  async generate(input: GenerationInput): Promise<GenerationResult> {
    input.signal.throwIfAborted();
    if (this.closed) throw new Error("The openai-compatible engine is closed");
    const streamed: StreamedSoFar = { tokens: 0 };
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.attempt(input, streamed);
      } catch (error) {
        if (input.signal.aborted) throw input.signal.reason;
        const retryable = error instanceof OpenAiCompatibleUpstreamError && error.retryable;
        if (!retryable || streamed.tokens > 0 || attempt >= this.maxRetries) {
          throw withContext(error, attempt + 1, streamed.tokens);
        }
        const delayMs = retryDelayMs(attempt, error.retryAfterMs, this.retryPolicy);
        await this.waitBeforeRetry(delayMs, input.signal).catch(() => {
          throw input.signal.reason;
        });
      }
    }
  }

  /** Nothing to release (connections belong to fetch's pool); later generate() calls are refused. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  private async attempt(input: GenerationInput, streamed: StreamedSoFar): Promise<GenerationResult> {
    const controller = new AbortController();
    const idle = new IdleTimer(this.timeoutMs, () => controller.abort(new Error("upstream idle")));
    const forwardAbort = (): void => controller.abort(input.signal.reason);
    input.signal.addEventListener("abort", forwardAbort, { once: true });
    // A client per attempt only to hand its fetch this attempt's idle timer: any byte is a sign of life.
    const client = createUpstreamClient({ ...this.options, fetch: restartOnBytes(this.fetch, () => idle.restart()) });
    try {
      const options = { signal: controller.signal };
      const stream =
        input.rawPrompt === undefined
          ? await client.chat.completions.create(this.body(input), options)
          : await client.completions.create(this.rawBody(input, input.rawPrompt), options);
      const reply = await this.readReply(stream, input, streamed);
      input.signal.throwIfAborted();
      // The client ends a stream it saw aborted without an error: our timer is the one that knows.
      if (idle.fired) throw new Error("upstream idle");
      return this.result(reply, streamed);
    } catch (error) {
      if (input.signal.aborted) throw input.signal.reason;
      const failure = upstreamError(error, idle.fired ? this.timeoutMs : undefined, this.options.apiKey);
      throw input.rawPrompt !== undefined && failure.status === 404 ? noCompletions(failure) : failure;
    } finally {
      idle.stop();
      input.signal.removeEventListener("abort", forwardAbort);
      controller.abort();
    }
  }

  private body(input: GenerationInput): ChatCompletionCreateParamsStreaming {
    return {
      model: this.options.model,
      messages: input.turns.map(({ role, content }) => ({ role, content })),
      ...this.samplingFields(input),
      stream: true,
    };
  }

  /** A raw prompt, continued as written: the upstream's text completion, with the same sampling. */
  private rawBody(input: GenerationInput, prompt: string): CompletionCreateParamsStreaming {
    return { model: this.options.model, prompt, ...this.samplingFields(input), stream: true };
  }

  private samplingFields(input: GenerationInput) {
    const { maxTokens, temperature, topP, seed } = input.sampling;
    // A raw prompt has no turns, so no turn markers to stop at: only the client's own.
    const turnStops = input.rawPrompt === undefined ? (this.options.stop ?? []) : [];
    // OpenAI refuses more than 4; the worker cuts the reply at all of them anyway (cleanReply).
    const stop = [...(input.stop ?? []), ...turnStops].slice(0, MAX_UPSTREAM_STOPS);
    return {
      max_tokens: maxTokens,
      temperature,
      top_p: topP,
      seed,
      ...upstreamSamplingFields(input),
      ...(this.options.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
      ...(stop.length ? { stop } : {}),
    };
  }

  private async readReply(
    stream: AsyncIterable<unknown>,
    input: GenerationInput,
    streamed: StreamedSoFar,
  ): Promise<ChatCompletionAccumulator> {
    const reply = new ChatCompletionAccumulator();
    for await (const chunk of stream) {
      if (reply.apply(chunk)) this.report(reply, input, streamed);
      input.signal.throwIfAborted(); // onProgress may abort: report nothing after that
    }
    return reply;
  }

  private result(reply: ChatCompletionAccumulator, streamed: StreamedSoFar): GenerationResult {
    if (reply.finishReason === undefined) {
      throw new OpenAiCompatibleUpstreamError("Upstream ended the response before the stream finished", {
        retryable: true,
      });
    }
    // A count already reported must not shrink, or progress would run ahead of the result.
    const tokens = Math.max(reply.completionTokens ?? 0, streamed.tokens);
    const toolCalls = reply.toolCalls.filter((call) => call.name !== "").map(withId);
    return {
      text: toolCalls.length > 0 ? "" : reply.text,
      finishReason: reply.finishReason === "length" ? "length" : "stop",
      tokens,
      promptTokens: reply.promptTokens ?? 0,
      cachedTokens: reply.cachedTokens ?? 0,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    };
  }

  /**
   * The count, and the text so far (the worker streams it to a client that asked, as it does
   * llama-server's). Deltas beyond maxTokens can only be pieces of tokens, so the count never passes it.
   */
  private report(reply: ChatCompletionAccumulator, input: GenerationInput, streamed: StreamedSoFar): void {
    const tokens = Math.min(reply.deltas, input.sampling.maxTokens);
    if (tokens <= streamed.tokens) return;
    streamed.tokens = tokens;
    input.onProgress({ tokens, text: reply.text });
  }
}

/** A call as recorded: the server's id, or one of ours where it sent none (some compatible servers do not). */
function withId(call: { id: string; name: string; arguments: string }): ToolCall {
  return { ...call, id: call.id || `call_${randomBytes(12).toString("hex")}`, arguments: call.arguments || "{}" };
}

/**
 * A server without `/v1/completions`: said as such, with what its operator can do. The request cannot
 * run on this model as sent, so the job is not tried again (sending it again fails the same way).
 */
function noCompletions(failure: OpenAiCompatibleUpstreamError): GenerationFailure {
  return new GenerationFailure(
    "invalid_request",
    `this model's upstream server has no /v1/completions, so it cannot continue a raw prompt: use chat completions (${failure.message}; its operator can set completions: false in MODELS_CONFIG to refuse such requests at once)`,
  );
}

function withContext(error: unknown, attempts: number, streamedTokens: number): unknown {
  if (!(error instanceof OpenAiCompatibleUpstreamError)) return error;
  const notes: string[] = [];
  if (attempts > 1) notes.push(`after ${attempts} attempts`);
  if (streamedTokens > 0) notes.push(`after ${streamedTokens} tokens had streamed, so not retried`);
  return notes.length === 0 ? error : error.withNote(notes.join("; "));
}
