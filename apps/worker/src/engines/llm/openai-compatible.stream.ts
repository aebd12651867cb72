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

/**
 * Builds a reply from the chunks of a streamed chat completion (`chat.completion.chunk`, as the
 * `openai` client parses them) or text completion (`text_completion`, a raw prompt's). Read
 * defensively: compatible servers add fields of their own (reasoning, llama.cpp's timings) and leave
 * others out.
 */
export class ChatCompletionAccumulator {
  text = "";
  /** Chunks that carried generated text (content or reasoning): about one token each. */
  deltas = 0;
  finishReason: string | undefined;
  promptTokens: number | undefined;
  completionTokens: number | undefined;
  /** `usage.prompt_tokens_details.cached_tokens` (OpenAI), or llama.cpp's `timings.cache_n`. */
  cachedTokens: number | undefined;
  /** Tool calls by their index, assembled from their pieces (id and name once, arguments in parts). */
  readonly toolCalls: { id: string; name: string; arguments: string }[] = [];

  /** Applies one chunk; returns true when it carried generated text. */
  apply(chunk: unknown): boolean {
    const record = asRecord(chunk) ?? {};
    this.readUsage(asRecord(record.usage));
    this.cachedTokens = asCount(asRecord(record.timings)?.cache_n) ?? this.cachedTokens;
    const choices = Array.isArray(record.choices) ? (record.choices as unknown[]) : [];
    const choice = asRecord(choices.find((c) => (asRecord(c)?.index ?? 0) === 0));
    if (choice === undefined) return false;
    if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
    // A text completion's chunk (`/v1/completions`) carries its piece as `text`, not in a delta.
    const delta = asRecord(choice.delta) ?? (typeof choice.text === "string" ? { content: choice.text } : undefined);
    return this.readDelta(delta);
  }

  private readDelta(delta: JsonRecord | undefined): boolean {
    const calls = Array.isArray(delta?.tool_calls) ? (delta.tool_calls as unknown[]) : [];
    for (const call of calls) this.readToolCall(asRecord(call));
    const content = nonEmptyString(delta?.content);
    // Reasoning models stream their thinking separately: it is generated work, not reply text.
    const reasoning = nonEmptyString(delta?.reasoning_content) ?? nonEmptyString(delta?.reasoning);
    if (content !== undefined) this.text += content;
    if (content === undefined && reasoning === undefined && calls.length === 0) return false;
    this.deltas += 1;
    return true;
  }

  private readToolCall(call: JsonRecord | undefined): void {
    const index = asCount(call?.index) ?? 0;
    const fn = asRecord(call?.function);
    const known = (this.toolCalls[index] ??= { id: "", name: "", arguments: "" });
    known.id ||= nonEmptyString(call?.id) ?? "";
    known.name += nonEmptyString(fn?.name) ?? "";
    known.arguments += nonEmptyString(fn?.arguments) ?? "";
  }

  private readUsage(usage: JsonRecord | undefined): void {
    if (usage === undefined) return;
    this.promptTokens = asCount(usage.prompt_tokens) ?? this.promptTokens;
    this.completionTokens = asCount(usage.completion_tokens) ?? this.completionTokens;
    this.cachedTokens = asCount(asRecord(usage.prompt_tokens_details)?.cached_tokens) ?? this.cachedTokens;
  }
}
