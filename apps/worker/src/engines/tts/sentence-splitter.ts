/**
 * Splits text into chunks of whole sentences, each at most `maxChars` UTF-16 units, so that long
 * texts are synthesized piece by piece (progress, abort between pieces, bounded memory) and pieces
 * join where a speaker pauses anyway. A sentence longer than `maxChars` is cut at the last clause
 * mark or space before the limit; text with neither is cut hard.
 */
export function splitIntoChunks(text: string, maxChars: number, locale = "en"): string[] {
  if (maxChars < 1) throw new RangeError(`maxChars must be at least 1, not ${maxChars}`);
  const segmenter = new Intl.Segmenter(locale, { granularity: "sentence" });
  const chunks: string[] = [];
  let current = "";
  for (const { segment } of segmenter.segment(text)) {
    for (const piece of splitLongSentence(segment, maxChars)) {
      if (current.length + piece.length > maxChars && current.trim() !== "") {
        chunks.push(current.trim());
        current = "";
      }
      current += piece;
    }
  }
  if (current.trim() !== "") chunks.push(current.trim());
  return chunks;
}

const CLAUSE_BREAK = /[,;:)\]}\u2013\u2014]\s+|\s+/g;

function splitLongSentence(sentence: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const cut = bestCut(rest.slice(0, maxChars + 1));
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

/** Index just after the last clause mark (preferred) or white space in `window`, else a hard cut. */
function bestCut(window: string): number {
  let clause = 0;
  let space = 0;
  for (const match of window.matchAll(CLAUSE_BREAK)) {
    const end = match.index + match[0].length;
    if (end > window.length - 1) continue; // the cut must leave the piece within maxChars
    if (/^\s/.test(match[0])) space = end;
    else clause = end;
  }
  // A clause mark far from the limit would make tiny chunks: only prefer it in the last third.
  if (clause > (window.length * 2) / 3) return clause;
  if (space > 0) return space;
  const hard = window.length - 1;
  // Never separate the two halves of a surrogate pair (an emoji, say).
  return hard > 1 && /[\uD800-\uDBFF]/.test(window.charAt(hard - 1)) ? hard - 1 : hard;
}

/** About one or two sentences: the first chunk of streamed speech, whose audio leaves first. */
export const FIRST_STREAMED_CHUNK_CHARS = 160;

/**
 * Chunks for speech sent as it is made: the first about a sentence (at most `firstChars`), so its
 * audio is ready after one short eSpeak run; the rest as splitIntoChunks cuts it, up to `maxChars`,
 * since each run costs a fixed start-up (~75 ms quiet, a few hundred on a loaded machine: npm run
 * bench). The first chunk's audio (~10 s) plays far longer than the rest takes to make, so smaller
 * later chunks would add runs and no audible gain: 200 words take 2 runs, as whole.
 */
export function splitForStreaming(
  text: string,
  maxChars: number,
  firstChars = FIRST_STREAMED_CHUNK_CHARS,
  locale = "en",
): string[] {
  const [first, ...rest] = splitIntoChunks(text, Math.min(firstChars, maxChars), locale);
  if (first === undefined) return [];
  return [first, ...splitIntoChunks(rest.join(" "), maxChars, locale)];
}
