import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import {
  ApiError,
  JOB_NAMES,
  SPEECH_REQUEST_REJECTED,
  type SpeechJobResult,
  type SpeechRequest,
  type SynthesizeSpeechJob,
} from "@chorus/contracts";
import type { SpeechAudioStore } from "@chorus/platform/speech-audio";
import type { Queue, QueueEvents } from "bullmq";
import type { SpeechStreamReaders } from "./speech-stream-readers.js";

/** Audio that is whole in Redis, ready to be streamed: its request id (the key) and its meta. */
export interface SynthesizedSpeech {
  requestId: string;
  meta: SpeechJobResult;
}

/** A job enqueued: `finished` settles with its result; streamed, its audio arrives on its stream meanwhile. */
export interface SpeechJob {
  requestId: string;
  finished: Promise<SpeechJobResult>;
}

/** "REQUEST_REJECTED voice: ..." from the worker: the request asked for what this deployment lacks. */
function rejectedRequest(reason: string): ApiError | null {
  const match = new RegExp(`^${SPEECH_REQUEST_REJECTED} (voice|format): (.*)$`, "s").exec(reason);
  if (!match) return null;
  const parameter = match[1] as string;
  return ApiError.invalidParameter(parameter, "string", match[2] as string);
}

/**
 * Speech is synchronous for the client: enqueue, wait for the worker (bounded); the audio then waits
 * in Redis for the route to stream it (see SpeechAudioStore), or, streamed, goes out as it is made.
 */
export class SpeechJobs {
  constructor(
    private readonly queue: Queue<SynthesizeSpeechJob>,
    private readonly events: QueueEvents,
    readonly audio: SpeechAudioStore,
    /** Where streamed jobs' audio is read as it comes. */
    readonly readers: SpeechStreamReaders,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Enqueues a job; `finished` settles with its result (bounded by the time limit). Streamed, it
   * publishes its audio as it is made (read it with SpeechStreamReaders); else it parks it whole.
   */
  async enqueue(
    keyId: string,
    request: SpeechRequest,
    requestId: string = randomUUID(),
    stream = false,
  ): Promise<SpeechJob> {
    const job = await this.queue.add(
      JOB_NAMES.synthesizeSpeech,
      { requestId, keyId, request, acceptedAt: Date.now(), ...(stream ? { stream } : {}) },
      { jobId: requestId },
    );
    const finished = (job.waitUntilFinished(this.events, this.timeoutMs) as Promise<SpeechJobResult>).catch(
      async (error: unknown) => {
        throw await this.failure(requestId, error instanceof Error ? error.message : String(error));
      },
    );
    return { requestId, finished };
  }

  /**
   * The audio of an earlier request with the same Idempotency-Key, which keeps it until it expires:
   * at once when it is whole, else once it is (the first request may still be running), within the
   * usual time limit.
   */
  async replay(requestId: string): Promise<SynthesizedSpeech> {
    for (const giveUpAt = Date.now() + this.timeoutMs; Date.now() < giveUpAt; await delay(100)) {
      const meta = await this.audio.meta(requestId);
      if (meta) return { requestId, meta };
    }
    throw new ApiError(
      "SERVICE_UNAVAILABLE",
      `the first request with this Idempotency-Key did not deliver within ${this.timeoutMs / 1000} s; retry later`,
    );
  }

  /** The client's answer to a job that failed with `reason` (a request at fault: 400; too slow: 503; else 500). */
  async failure(requestId: string, reason: string): Promise<ApiError> {
    const rejected = rejectedRequest(reason);
    if (rejected) return rejected;
    if (/timed out before finishing/.test(reason)) {
      // Nobody will collect it: drop the job if it has not started, and any audio already stored.
      await this.queue.remove(requestId).catch(() => 0);
      await this.audio.delete(requestId).catch(() => undefined);
      return new ApiError(
        "SERVICE_UNAVAILABLE",
        `speech synthesis did not finish within ${this.timeoutMs / 1000} s; retry later`,
      );
    }
    return new ApiError("INTERNAL_ERROR", `speech synthesis failed: ${reason.slice(0, 300)}`);
  }
}
