import { OpenAiCompatibleUpstreamError, upstreamMessage } from "./openai-compatible.upstream-error.js";

/**
 * Splits a Server-Sent Events byte stream into the `data` payloads of its events, whatever the
 * chunking: bytes may be split inside a UTF-8 character, a line, or a CRLF pair. Comments
 * (`: keep-alive`) and fields other than `data` (`event`, `id`, `retry`) are ignored.
 */
export class SseDataParser {
  private readonly decoder = new TextDecoder();
  private pending = "";
  private dataLines: string[] = [];

  /** Feeds the next bytes; returns the payloads of the events they complete. */
  push(bytes: Uint8Array): string[] {
    this.pending += this.decoder.decode(bytes, { stream: true });
    const payloads: string[] = [];
    let lineStart = 0;
    for (let i = 0; i < this.pending.length; i += 1) {
      const char = this.pending[i];
      if (char !== "\n" && char !== "\r") continue;
      // A CR that ends the buffer may be half of a CRLF: decide when the next bytes arrive.
      if (char === "\r" && i === this.pending.length - 1) break;
      this.acceptLine(this.pending.slice(lineStart, i), payloads);
      if (char === "\r" && this.pending[i + 1] === "\n") i += 1;
      lineStart = i + 1;
    }
    this.pending = this.pending.slice(lineStart);
    return payloads;
  }

  /**
   * Ends the stream. Leniently (the SSE spec would drop it) also returns an event whose final blank
   * line never came, so a server that closes right after `data: [DONE]\n` still finishes cleanly.
   */
  end(): string[] {
    const payloads: string[] = [];
    const rest = (this.pending + this.decoder.decode()).replace(/\r$/, "");
    this.pending = "";
    if (rest !== "") this.acceptLine(rest, payloads);
    this.acceptLine("", payloads);
    return payloads;
  }

  private acceptLine(line: string, payloads: string[]): void {
    if (line === "") {
      if (this.dataLines.length > 0) payloads.push(this.dataLines.join("\n"));
      this.dataLines = [];
      return;
    }
    const colon = line.indexOf(":");
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== "data") return;
    const value = colon === -1 ? "" : line.slice(colon + 1);
    this.dataLines.push(value.startsWith(" ") ? value.slice(1) : value);
  }
}

type JsonRecord = Record<string, unknown>;

function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

function asCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Builds a reply from the payloads of a streamed chat completion (`chat.completion.chunk`). */
export class ChatCompletionAccumulator {
  text = "";
  /** Chunks that carried generated text (content or reasoning): about one token each. */
  deltas = 0;
  finishReason: string | undefined;
  promptTokens: number | undefined;
  completionTokens: number | undefined;
  /** `usage.prompt_tokens_details.cached_tokens` (OpenAI), or llama.cpp's `timings.cache_n`. */
  cachedTokens: number | undefined;
  /** `data: [DONE]` was seen. */
  done = false;

  /** Applies one payload; returns true when it carried generated text. */
  apply(payload: string, apiKey: string | undefined): boolean {
    const trimmed = payload.trim();
    if (trimmed === "[DONE]") this.done = true;
    if (trimmed === "[DONE]" || trimmed === "") return false;
    const chunk = parseChunk(trimmed, apiKey);
    this.readUsage(asRecord(chunk.usage));
    this.cachedTokens = asCount(asRecord(chunk.timings)?.cache_n) ?? this.cachedTokens;
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
    const choice = asRecord(choices.find((c) => (asRecord(c)?.index ?? 0) === 0));
    if (choice === undefined) return false;
    if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
    return this.readDelta(asRecord(choice.delta));
  }

  private readDelta(delta: JsonRecord | undefined): boolean {
    const content = nonEmptyString(delta?.content);
    // Reasoning models stream their thinking separately: it is generated work, not reply text.
    const reasoning = nonEmptyString(delta?.reasoning_content) ?? nonEmptyString(delta?.reasoning);
    if (content !== undefined) this.text += content;
    if (content === undefined && reasoning === undefined) return false;
    this.deltas += 1;
    return true;
  }

  private readUsage(usage: JsonRecord | undefined): void {
    if (usage === undefined) return;
    this.promptTokens = asCount(usage.prompt_tokens) ?? this.promptTokens;
    this.completionTokens = asCount(usage.completion_tokens) ?? this.completionTokens;
    this.cachedTokens = asCount(asRecord(usage.prompt_tokens_details)?.cached_tokens) ?? this.cachedTokens;
  }
}

function parseChunk(payload: string, apiKey: string | undefined): JsonRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    throw new OpenAiCompatibleUpstreamError("Upstream sent a stream event that is not JSON", { retryable: false });
  }
  const chunk = asRecord(parsed) ?? {};
  if (chunk.error !== undefined && chunk.error !== null) {
    const message = upstreamMessage(payload, apiKey);
    throw new OpenAiCompatibleUpstreamError(`Upstream reported an error mid-stream: ${message}`, { retryable: false });
  }
  return chunk;
}
