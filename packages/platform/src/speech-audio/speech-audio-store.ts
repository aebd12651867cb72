import type { SpeechJobResult } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";

/** 1 MiB: small enough that no single command holds a connection (or Redis) for long. */
export const AUDIO_PIECE_BYTES = 1 << 20;

/**
 * Synthesized speech in Redis, from the worker that made it to the gateway that delivers it. The
 * bytes are one string written and read a piece at a time (APPEND, GETRANGE), so that tens of MB
 * never travel as one command; the meta is written last, so its presence means the audio is whole.
 * Both expire after the worker's TTL; the gateway deletes them once delivered (or keeps them for
 * retries with the same Idempotency-Key).
 */
export class SpeechAudioStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly pieceBytes = AUDIO_PIECE_BYTES,
  ) {}

  /** A retried job overwrites what an earlier attempt left: the first piece is a SET. */
  async write(requestId: string, bytes: Buffer, meta: SpeechJobResult, ttlSeconds: number): Promise<void> {
    const audio = this.keys.audio(requestId);
    await this.redis.set(audio, bytes.subarray(0, this.pieceBytes), "EX", ttlSeconds);
    for (let at = this.pieceBytes; at < bytes.length; at += this.pieceBytes)
      await this.redis.append(audio, bytes.subarray(at, at + this.pieceBytes));
    await this.redis.set(this.keys.audioMeta(requestId), JSON.stringify(meta), "EX", ttlSeconds);
  }

  /** The meta of audio that is whole, or null (not yet written, expired, or deleted). */
  async meta(requestId: string): Promise<SpeechJobResult | null> {
    const json = await this.redis.get(this.keys.audioMeta(requestId));
    return json === null ? null : (JSON.parse(json) as SpeechJobResult);
  }

  async byteLength(requestId: string): Promise<number> {
    return this.redis.strlen(this.keys.audio(requestId));
  }

  /** The bytes in order, one GETRANGE per piece, each read only when the consumer asks for it. */
  async *pieces(requestId: string, byteLength: number): AsyncGenerator<Buffer> {
    const audio = this.keys.audio(requestId);
    for (let at = 0; at < byteLength; at += this.pieceBytes) {
      yield await this.redis.getrangeBuffer(audio, at, Math.min(at + this.pieceBytes, byteLength) - 1);
    }
  }

  /** The audio, its meta and, for streamed speech, its stream (all one hash tag). */
  async delete(requestId: string): Promise<void> {
    await this.redis.del(this.keys.audio(requestId), this.keys.audioMeta(requestId), this.keys.audioStream(requestId));
  }
}
