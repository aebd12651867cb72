import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { ApiError, JOB_NAMES, SPEECH_REQUEST_REJECTED, type SpeechJobResult, type SpeechRequest, type SynthesizeSpeechJob } from "@chorus/contracts";
import type { RedisKeys } from "@chorus/platform";
import type { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";

export interface SynthesizedSpeech {
  audio: Buffer;
  meta: SpeechJobResult;
}

/** "REQUEST_REJECTED voice: ..." from the worker: the request asked for what this deployment lacks. */
function rejectedRequest(reason: string): ApiError | null {
  const match = new RegExp(`^${SPEECH_REQUEST_REJECTED} (voice|format): (.*)$`, "s").exec(reason);
  if (!match) return null;
  const parameter = match[1] as string;
  return ApiError.invalidParameter(parameter, "string", match[2] as string);
}

/**
 * Speech is synchronous for the client: enqueue, wait for the worker (bounded), then take the audio
 * out of Redis in the same command that deletes it.
 */
export class SpeechJobs {
  constructor(
    private readonly queue: Queue<SynthesizeSpeechJob>,
    private readonly events: QueueEvents,
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly timeoutMs: number,
  ) {}

  /** With `keepSeconds`, the delivered audio is also kept that long for idempotent retries. */
  async synthesize(keyId: string, request: SpeechRequest, requestId: string = randomUUID(), keepSeconds = 0): Promise<SynthesizedSpeech> {
    const job = await this.queue.add(JOB_NAMES.synthesizeSpeech, { requestId, keyId, request, acceptedAt: Date.now() }, { jobId: requestId });
    let meta: SpeechJobResult;
    try {
      meta = (await job.waitUntilFinished(this.events, this.timeoutMs)) as SpeechJobResult;
    } catch (error) {
      throw await this.failure(requestId, error instanceof Error ? error.message : String(error));
    }
    const audio = await this.redis.getdelBuffer(this.keys.audio(requestId));
    if (!audio) throw new ApiError("INTERNAL_ERROR", "the synthesized audio was lost before delivery; retry the request");
    if (keepSeconds > 0) {
      const kept = this.keys.keptAudio(requestId);
      await this.redis.multi().hset(kept, { audio, meta: JSON.stringify(meta) }).expire(kept, keepSeconds).exec();
    }
    return { audio, meta };
  }

  /**
   * The audio of an earlier request with the same Idempotency-Key: at once when it was delivered,
   * else once it is (the first request may still be running), within the usual time limit.
   */
  async replay(requestId: string): Promise<SynthesizedSpeech> {
    const kept = this.keys.keptAudio(requestId);
    for (const giveUpAt = Date.now() + this.timeoutMs; Date.now() < giveUpAt; await delay(100)) {
      const [audio, meta] = await this.redis.hmgetBuffer(kept, "audio", "meta");
      if (audio && meta) return { audio, meta: JSON.parse(meta.toString()) as SpeechJobResult };
    }
    throw new ApiError("SERVICE_UNAVAILABLE", `the first request with this Idempotency-Key did not deliver within ${this.timeoutMs / 1000} s; retry later`);
  }

  private async failure(requestId: string, reason: string): Promise<ApiError> {
    const rejected = rejectedRequest(reason);
    if (rejected) return rejected;
    if (/timed out before finishing/.test(reason)) {
      // Nobody will collect it: drop the job if it has not started, and any audio already stored.
      await this.queue.remove(requestId).catch(() => 0);
      await this.redis.del(this.keys.audio(requestId)).catch(() => 0);
      return new ApiError("SERVICE_UNAVAILABLE", `speech synthesis did not finish within ${this.timeoutMs / 1000} s; retry later`);
    }
    return new ApiError("INTERNAL_ERROR", `speech synthesis failed: ${reason.slice(0, 300)}`);
  }
}
