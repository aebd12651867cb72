/** What of a reply is spoken, and whether that is all of it. */
export interface SpokenPart {
  text: string;
  whole: boolean;
}

const SENTENCES = new Intl.Segmenter("en", { granularity: "sentence" });

/**
 * A reply within `maxChars` (code points, as the speech endpoint's schema counts `text`) is spoken
 * whole. A longer one is cut where a listener hears an end: after the last sentence that ends within
 * the first `maxChars` characters; without one (a first sentence longer than that), at the last
 * white space within them; with no white space either, at `maxChars` itself. docs/api.md says the same.
 */
export function spokenPart(reply: string, maxChars: number): SpokenPart {
  const codePoints = [...reply];
  if (codePoints.length <= maxChars) return { text: reply, whole: true };
  // The bound in UTF-16 units, which string indexes count; it never falls inside a surrogate pair.
  const bound = codePoints.slice(0, maxChars).join("").length;
  const end = lastSentenceEnd(reply, bound) || lastSpace(reply, bound) || bound;
  return { text: reply.slice(0, end).trimEnd(), whole: false };
}

/** The end (less trailing white space) of the last sentence that ends at or before `bound`, or 0. */
function lastSentenceEnd(text: string, bound: number): number {
  let end = 0;
  for (const { index, segment } of SENTENCES.segment(text)) {
    const sentenceEnd = index + segment.trimEnd().length;
    if (sentenceEnd > bound) break;
    if (segment.trim() !== "") end = sentenceEnd;
  }
  return end;
}

/** The index of the last white space at or before `bound` with some text before it, or 0. */
function lastSpace(text: string, bound: number): number {
  for (let at = bound; at > 0; at--) if (/\s/.test(text.charAt(at)) && text.slice(0, at).trim() !== "") return at;
  return 0;
}
