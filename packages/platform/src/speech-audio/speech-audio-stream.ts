import { randomUUID } from "node:crypto";
import type { SpeechJobResult } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { AUDIO_PIECE_BYTES } from "./speech-audio-store.js";

/**
 * One entry of a streamed speech job's Redis Stream. `run` names the processor run that wrote it: a
 * job taken over by another worker (its first worker died) starts a new run from the first byte,
 * which a reader that has already sent bytes of another run cannot splice in.
 */
export type AudioStreamEntry =
  | { run: string; kind: "piece"; bytes: Buffer; contentType: string; sampleRate: number | null }
  | { run: string; kind: "end"; meta: SpeechJobResult }
  | { run: string; kind: "failed"; reason: string };

/**
 * The worker's side of streamed speech: each encoded piece goes, in one MULTI (one hash tag), onto
 * the end of the whole audio (kept for Idempotency-Key replays, as SpeechAudioStore reads it) and
 * onto the request's stream; the end entry comes with the meta, so whoever sees it finds the audio
 * whole. Every write renews the stream's expiry, which is the audio's.
 */
export class SpeechAudioStreamWriter {
  readonly run = randomUUID();
  private wroteFirstPiece = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly requestId: string,
    private readonly ttlSeconds: number,
    private readonly pieceBytes = AUDIO_PIECE_BYTES,
  ) {}

  /**
   * Publishes `bytes` (in entries of at most 1 MiB) with what the answer's headers say (so a
   * reader can send them with the first); resolves once Redis has them.
   */
  async piece(
    bytes: Uint8Array,
    { contentType, sampleRate }: { contentType: string; sampleRate: number | null },
  ): Promise<void> {
    for (let at = 0; at < bytes.length; at += this.pieceBytes) {
      const part = Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(this.pieceBytes, bytes.length - at));
      const audio = this.keys.audio(this.requestId);
      const multi = this.redis.multi();
      // A run starts the audio afresh: what an earlier run left is overwritten, not appended to.
      // APPEND to a key the gateway deleted meanwhile makes it anew: the expiry comes with every piece.
      if (this.wroteFirstPiece) multi.append(audio, part).expire(audio, this.ttlSeconds);
      else multi.set(audio, part, "EX", this.ttlSeconds);
      this.wroteFirstPiece = true;
      await this.add(multi, "piece", part, ["contentType", contentType, "sampleRate", String(sampleRate ?? "")]).exec();
    }
  }

  async end(meta: SpeechJobResult): Promise<void> {
    const multi = this.redis
      .multi()
      .set(this.keys.audioMeta(this.requestId), JSON.stringify(meta), "EX", this.ttlSeconds);
    await this.add(multi, "end", JSON.stringify(meta)).exec();
  }

  async fail(reason: string): Promise<void> {
    await this.add(this.redis.multi(), "failed", reason).exec();
  }

  private add(
    multi: ReturnType<RedisClient["multi"]>,
    kind: AudioStreamEntry["kind"],
    data: string | Buffer,
    more: string[] = [],
  ) {
    const stream = this.keys.audioStream(this.requestId);
    return multi
      .xadd(stream, "*", "run", this.run, "kind", kind, "data", data, ...more)
      .expire(stream, this.ttlSeconds);
  }
}

/** The entry XREAD returned as [field, value, ...] Buffers. */
function parseEntry(fields: Buffer[]): AudioStreamEntry {
  const values = new Map<string, Buffer>();
  for (let i = 0; i + 1 < fields.length; i += 2) values.set(String(fields[i]), fields[i + 1] as Buffer);
  const run = String(values.get("run") ?? "");
  const data = values.get("data") ?? Buffer.alloc(0);
  const kind = String(values.get("kind"));
  if (kind === "piece") {
    const sampleRate = String(values.get("sampleRate") ?? "");
    return {
      run,
      kind,
      bytes: data,
      contentType: String(values.get("contentType")),
      sampleRate: sampleRate === "" ? null : Number(sampleRate),
    };
  }
  if (kind === "end") return { run, kind, meta: JSON.parse(String(data)) as SpeechJobResult };
  return { run, kind: "failed", reason: String(data) };
}

/**
 * The gateway's side: the request's entries in order, from the first, each XREAD blocking up to
 * `blockMs`; an empty batch (nothing new within `blockMs`) is yielded so the caller can look at its
 * clock and its job. Blocking commands hold their connection: `redis` must be one of this reader's
 * own, and closing it is how a caller stops a read in flight (the XREAD then rejects).
 */
export async function* readAudioStream(
  redis: RedisClient,
  keys: RedisKeys,
  requestId: string,
  blockMs: number,
): AsyncGenerator<AudioStreamEntry[]> {
  const stream = keys.audioStream(requestId);
  let lastId = "0";
  for (;;) {
    const reply = await redis.xreadBuffer("BLOCK", blockMs, "STREAMS", stream, lastId);
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length > 0) lastId = String((entries[entries.length - 1] as [Buffer, Buffer[]])[0]);
    yield entries.map(([, fields]) => parseEntry(fields));
  }
}
