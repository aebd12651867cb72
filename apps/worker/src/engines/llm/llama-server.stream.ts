/**
 * The events of llama-server's streamed `/completion` answer (`stream: true`): Server-Sent Events
 * whose `data:` is one JSON object, a token's text (`content`) with the tokens decoded so far, and
 * last one with `stop: true` carrying the counts and timings.
 */
export interface StreamedCompletionEvent {
  content?: string;
  stop?: boolean;
  tokens_predicted?: number;
  tokens_evaluated?: number;
  timings?: { cache_n?: number };
}

/**
 * Each Server-Sent Event's `data:` JSON, in order, from a streamed answer's body: comments, empty
 * events and OpenAI's end marker (`data: [DONE]`) are skipped.
 */
export async function* sseJsonEvents<T>(body: AsyncIterable<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replaceAll("\r\n", "\n");
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      buffer = buffer.slice(end + 2);
      if (data !== "" && data !== "[DONE]") yield JSON.parse(data) as T;
    }
  }
}
