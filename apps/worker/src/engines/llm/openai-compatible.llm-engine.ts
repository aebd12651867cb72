import { setTimeout as sleep } from "node:timers/promises";
import type { ChatTurn, GenerationInput, GenerationResult, LlmEngine } from "./llm-engine.js";
import { ChatCompletionAccumulator, SseDataParser } from "./openai-compatible.stream.js";
import { OpenAiCompatibleUpstreamError, errorFromResponse, retryDelayMs, transportError } from "./openai-compatible.upstream-error.js";

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
  /** Stop sequences sent with every request (servers accept up to 4). */
  stop?: string[];
  /** Ask for the final usage chunk; turn off for servers that reject `stream_options` (Groq, Mistral). */
  includeUsage?: boolean;
  /** The upstream model's context window in tokens (default 8192); used to trim long conversations. */
  contextTokens?: number;
  fetch?: typeof fetch;
}

/** `.../v1` gets `/chat/completions` appended; anything else gets `/v1/chat/completions`. */
export function chatCompletionsUrl(baseUrl: string): string {
  const root = baseUrl.replace(/\/+$/, "");
  return root.endsWith("/v1") ? `${root}/chat/completions` : `${root}/v1/chat/completions`;
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

/** A text engine backed by any server speaking OpenAI's streaming chat completions protocol. */
export class OpenAiCompatibleLlmEngine implements LlmEngine {
  readonly name = "openai-compatible";
  readonly contextTokens: number;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryPolicy: { baseDelayMs: number; maxDelayMs: number };
  private readonly fetch: typeof fetch;
  private closed = false;

  constructor(private readonly options: OpenAiCompatibleLlmEngineOptions) {
    this.url = new URL(chatCompletionsUrl(options.baseUrl)).href;
    this.contextTokens = options.contextTokens ?? 8192;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryPolicy = { baseDelayMs: options.retryBaseDelayMs ?? 500, maxDelayMs: options.maxRetryDelayMs ?? 30_000 };
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** About four characters a token for English text, and a few tokens of template around each turn. */
  async countPromptTokens(turns: ChatTurn[]): Promise<number> {
    return turns.reduce((sum, turn) => sum + Math.ceil(turn.content.length / 4) + ESTIMATED_TURN_TEMPLATE_TOKENS, 0);
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
        await sleep(delayMs, undefined, { signal: input.signal }).catch(() => {
          throw input.signal.reason;
        });
      }
    }
  }

  /** Nothing to release (connections belong to fetch's pool); later generate() calls are refused. */
  async close(): Promise<void> {
    this.closed = true;
  }

  private async attempt(input: GenerationInput, streamed: StreamedSoFar): Promise<GenerationResult> {
    const controller = new AbortController();
    const idle = new IdleTimer(this.timeoutMs, () => controller.abort(new Error("upstream idle")));
    const forwardAbort = (): void => controller.abort(input.signal.reason);
    input.signal.addEventListener("abort", forwardAbort, { once: true });
    try {
      const response = await this.send(input, controller.signal, idle);
      return await this.readReply(response, input, streamed, idle);
    } finally {
      idle.stop();
      input.signal.removeEventListener("abort", forwardAbort);
      controller.abort();
    }
  }

  private async send(input: GenerationInput, signal: AbortSignal, idle: IdleTimer): Promise<Response> {
    let response: Response;
    try {
      response = await this.fetch(this.url, { method: "POST", headers: this.headers(), body: this.body(input), signal });
    } catch (error) {
      throw this.transportFailure(error, idle);
    }
    idle.restart();
    if (!response.ok) throw await errorFromResponse(response, this.options.apiKey);
    return response;
  }

  private transportFailure(error: unknown, idle: IdleTimer): OpenAiCompatibleUpstreamError {
    return transportError(error, idle.fired ? this.timeoutMs : undefined, this.options.apiKey);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  private body(input: GenerationInput): string {
    const { maxTokens, temperature, topP, seed } = input.sampling;
    return JSON.stringify({
      model: this.options.model,
      messages: input.turns.map(({ role, content }) => ({ role, content })),
      max_tokens: maxTokens,
      temperature,
      top_p: topP,
      seed,
      stream: true,
      ...(this.options.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
      ...(this.options.stop?.length ? { stop: this.options.stop } : {}),
    });
  }

  private async readReply(response: Response, input: GenerationInput, streamed: StreamedSoFar, idle: IdleTimer): Promise<GenerationResult> {
    const reader = response.body?.getReader();
    const parser = new SseDataParser();
    const reply = new ChatCompletionAccumulator();
    while (reader !== undefined && !reply.done) {
      const chunk = await reader.read().catch((error: unknown) => {
        throw this.transportFailure(error, idle);
      });
      if (!chunk.done) idle.restart();
      for (const payload of chunk.done ? parser.end() : parser.push(chunk.value)) {
        if (reply.done) break;
        if (reply.apply(payload, this.options.apiKey)) this.report(reply.deltas, input, streamed);
        input.signal.throwIfAborted(); // onProgress may abort: report nothing after that
      }
      if (chunk.done) break;
    }
    await reader?.cancel().catch(() => undefined);
    if (!reply.done && reply.finishReason === undefined) {
      throw new OpenAiCompatibleUpstreamError("Upstream ended the response before the stream finished", { retryable: true });
    }
    // A count already reported must not shrink, or progress would run ahead of the result.
    const tokens = Math.max(reply.completionTokens ?? 0, streamed.tokens);
    return { text: reply.text, tokens, promptTokens: reply.promptTokens ?? 0, cachedTokens: reply.cachedTokens ?? 0 };
  }

  /** Deltas beyond maxTokens can only be pieces of tokens, so the count never passes it. */
  private report(deltas: number, input: GenerationInput, streamed: StreamedSoFar): void {
    const tokens = Math.min(deltas, input.sampling.maxTokens);
    if (tokens <= streamed.tokens) return;
    streamed.tokens = tokens;
    input.onProgress({ tokens });
  }
}

function withContext(error: unknown, attempts: number, streamedTokens: number): unknown {
  if (!(error instanceof OpenAiCompatibleUpstreamError)) return error;
  const notes: string[] = [];
  if (attempts > 1) notes.push(`after ${attempts} attempts`);
  if (streamedTokens > 0) notes.push(`after ${streamedTokens} tokens had streamed, so not retried`);
  return notes.length === 0 ? error : error.withNote(notes.join("; "));
}
