/** Length of the fades at every join: short enough to be inaudible, long enough to remove any step. */
export const DEFAULT_FADE_MS = 5;

/**
 * Concatenates separately synthesized pieces without clicks: each piece fades in and out over a few
 * milliseconds (a raised cosine), so no join can make a step between the last sample of one piece
 * and the first of the next. Speech pieces start and end in their own pauses, so nothing audible is lost.
 */
export function joinWithFades(pieces: readonly Int16Array[], sampleRate: number, fadeMs = DEFAULT_FADE_MS): Int16Array {
  const fadeSamples = Math.max(1, Math.round((sampleRate * fadeMs) / 1000));
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const out = new Int16Array(total);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    fadeEdges(out.subarray(offset, offset + piece.length), fadeSamples);
    offset += piece.length;
  }
  return out;
}

function fadeEdges(piece: Int16Array, fadeSamples: number): void {
  const n = Math.min(fadeSamples, Math.floor(piece.length / 2));
  for (let i = 0; i < n; i += 1) {
    const gain = 0.5 - 0.5 * Math.cos((Math.PI * i) / n); // 0 at the edge, rising to 1
    piece[i] = Math.round((piece[i] as number) * gain);
    const j = piece.length - 1 - i;
    piece[j] = Math.round((piece[j] as number) * gain);
  }
}
