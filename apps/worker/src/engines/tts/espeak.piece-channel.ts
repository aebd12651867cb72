import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { EspeakPiece } from "./espeak.thread-protocol.js";
import type { AudioPieceHandler, AudioPieceInfo } from "./speech-engine.js";

export interface PieceChannel {
  /** The end to move to the speech thread (see EspeakJob.pieces). */
  readonly threadEnd: MessagePort;
  /** Every piece, once the thread has posted its last and `onPiece` has taken each; rejects with onPiece's error. */
  readonly drained: Promise<Buffer[]>;
  close(): void;
}

/**
 * The engine's end of a streamed synthesis: pieces arrive from the thread on their own port (the
 * task's result travels apart, so it may come before the last piece: `drained` waits for the thread's
 * `null`), and go to `onPiece` one at a time, in order. A failing `onPiece` aborts `stop`, which
 * ends the thread's task: nobody would take what it makes.
 */
export function openPieceChannel(
  onPiece: AudioPieceHandler,
  describe: (sampleRate: number) => AudioPieceInfo,
  stop: AbortController,
): PieceChannel {
  const { port1: ours, port2: threadEnd } = new MessageChannel();
  const pieces: Buffer[] = [];
  let handedOver: Promise<void> = Promise.resolve();
  const drained = new Promise<Buffer[]>((resolve, reject) => {
    ours.on("message", (message: EspeakPiece | null) => {
      if (message === null) {
        handedOver.then(() => resolve(pieces), reject);
        return;
      }
      const piece = Buffer.from(message.bytes);
      pieces.push(piece);
      handedOver = handedOver.then(() => onPiece(piece, describe(message.sampleRate)));
      handedOver.catch((error: unknown) => {
        stop.abort(error);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  // Read only when the thread finished well; a failure reaches the caller through the task or `stop`.
  drained.catch(() => undefined);
  return { threadEnd, drained, close: () => ours.close() };
}
