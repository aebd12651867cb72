import { waitUntilReady, type RedisClient, type RedisKeys } from "@chorus/platform/redis";
import { readAudioStream, type AudioStreamEntry } from "@chorus/platform/speech-audio";

/** Longest a reader waits for its own connection to Redis. */
const CONNECT_TIMEOUT_MS = 2000;

/**
 * Readers of streamed speech (see readAudioStream). XREAD BLOCK holds its connection, so each
 * reader gets one of its own, a copy of the audio connection's settings, for as long as it reads:
 * closing it is the one way to stop a blocked read at once, which a client that goes away needs.
 * Concurrent streams are bounded by the speech budget and TTS_TIMEOUT_MS (a connection each).
 */
export class SpeechStreamReaders {
  private reading = 0;

  constructor(
    private readonly audioRedis: RedisClient,
    private readonly keys: RedisKeys,
    /** Below the audio connection's command timeout: an idle XREAD returns (empty) before it. */
    private readonly blockMs = 2000,
  ) {}

  /** Readers holding a connection now (each open stream has one). */
  get open(): number {
    return this.reading;
  }

  /**
   * The request's entries in batches as they come (an empty batch: `blockMs` passed); stops, and closes its connection,
   * when `signal` aborts.
   */
  async *entries(requestId: string, signal: AbortSignal): AsyncGenerator<AudioStreamEntry[]> {
    const connection = this.audioRedis.duplicate();
    this.reading += 1;
    connection.on("error", () => undefined); // a failed read rejects the read itself
    const close = () => connection.disconnect();
    signal.addEventListener("abort", close, { once: true });
    try {
      signal.throwIfAborted();
      await waitUntilReady(connection, CONNECT_TIMEOUT_MS);
      yield* readAudioStream(connection, this.keys, requestId, this.blockMs);
    } finally {
      signal.removeEventListener("abort", close);
      close();
      this.reading -= 1;
    }
  }
}
