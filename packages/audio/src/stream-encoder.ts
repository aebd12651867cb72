/**
 * Encodes audio handed over a piece at a time, for speech sent as it is made: `header`, then what
 * each `push` returns, then what `finish` returns, concatenated, is one file of the format (a push
 * may return nothing while the encoder waits for a whole frame). `dispose` frees the encoder,
 * finished or not. CPU-bound: use it off the main thread.
 */
export interface StreamEncoder {
  readonly header: Uint8Array;
  push(samples: Int16Array): Promise<Uint8Array>;
  finish(): Promise<Uint8Array>;
  dispose(): void;
}
