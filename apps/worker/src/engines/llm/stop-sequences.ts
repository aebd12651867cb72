/**
 * Turns the model may start writing on its own (the user's next line); a reply stops before them.
 * One list for every text engine: llama.cpp gets it as stop triggers, remote servers as `stop`.
 */
export const STOP_SEQUENCES = ["\nYou:", "\nUser:", "\n### User"];

/** Every sequence a reply stops before: the turn markers, then the client's own (`stop` on /v1). */
export function stopSequencesFor(clientStops: readonly string[] = []): string[] {
  return [...STOP_SEQUENCES, ...clientStops];
}

/** A job's stop sequences: a raw prompt (/v1/completions) has no turns, so only the client's own. */
export function jobStopSequences(request: { prompt?: string; stop?: readonly string[] }): string[] {
  return request.prompt !== undefined ? [...(request.stop ?? [])] : stopSequencesFor(request.stop);
}

/**
 * The reply as it is stored: the engine's text, cut before the first stop sequence it holds (engines
 * cut there themselves; an upstream server may have been sent only some of them), without white
 * space around it (a raw prompt's continuation keeps the space it starts with: it is joined to the prompt).
 */
export function cleanReply(text: string, stops: readonly string[] = STOP_SEQUENCES, keepLeadingSpace = false): string {
  const cut = cutAtStops(text, stops);
  return keepLeadingSpace ? cut.trimEnd() : cut.trim();
}

/**
 * The reply so far as a client may see it: cleaned as the final reply is, less what the final reply
 * may not hold. An engine holds back the start of a stop sequence at the end of its text until the
 * next tokens tell (llama-server's slot text shows it), and a token may end in half a character.
 */
export function cleanPartialReply(
  text: string,
  stops: readonly string[] = STOP_SEQUENCES,
  keepLeadingSpace = false,
): string {
  const partial = cutAtStops(text, stops).replace(/\uFFFD+$/, "");
  const kept = partial.slice(0, partial.length - stopSequenceBegun(partial, stops));
  return keepLeadingSpace ? kept.trimEnd() : kept.trim();
}

/**
 * Why a reply ended, as its record says: an engine cut at its token limit may still hold a stop
 * sequence the worker cuts at (an upstream sent only some of them): that reply ended at a stop.
 */
export function replyFinishReason(
  text: string,
  engineFinish: "stop" | "length",
  stops: readonly string[],
): "stop" | "length" {
  return engineFinish === "length" && !stops.some((stop) => text.includes(stop)) ? "length" : "stop";
}

/** `text` up to the first of `stops` it holds. */
function cutAtStops(text: string, stops: readonly string[]): string {
  let cut = text;
  for (const stop of stops) {
    const at = cut.indexOf(stop);
    if (at >= 0) cut = cut.slice(0, at);
  }
  return cut;
}

/**
 * How many characters at the end of `text` begin a stop sequence (the longest such run), or 0. The
 * longest is the earliest place a stop sequence may still complete: what comes before it is in the
 * final reply whatever follows.
 */
function stopSequenceBegun(text: string, stops: readonly string[]): number {
  let longest = 0;
  for (const stop of stops) {
    for (let length = stop.length - 1; length > longest; length--) {
      if (text.endsWith(stop.slice(0, length))) longest = length;
    }
  }
  return longest;
}
