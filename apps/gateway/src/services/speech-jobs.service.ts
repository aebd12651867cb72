import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import {
  ApiError,
  JOB_NAMES,
  SPEECH_REQUEST_REJECTED,
  type BudgetHold,
  type SpeechJobResult,
  type SpeechRequest,
  type SynthesizeSpeechJob,
} from "@chorus/contracts";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
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
    /** Where a job dropped before it ran gives back what it held of its key's usage budgets. */
    private readonly budgets?: UsageBudgetLedger,
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
    budget?: BudgetHold,
  ): Promise<SpeechJob> {
    const job = await this.queue.add(
      JOB_NAMES.synthesizeSpeech,
      { requestId, keyId, request, acceptedAt: Date.now(), ...(stream ? { stream } : {}), ...(budget && { budget }) },
      { jobId: requestId },
    );
    const finished = (job.waitUntilFinished(this.events, this.timeoutMs) as Promise<SpeechJobResult>).catch(
      async (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw await this.failure(requestId, reason, budget && { keyId, budget });
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

  /**
   * The client's answer to a job that failed with `reason` (a request at fault: 400; too slow: 503;
   * else 500). A job dropped before it ran gives back its budget hold (`held`): no worker settles it.
   */
  async failure(requestId: string, reason: string, held?: { keyId: string; budget: BudgetHold }): Promise<ApiError> {
    const rejected = rejectedRequest(reason);
    if (rejected) return rejected;
    if (/timed out before finishing/.test(reason)) {
      // Nobody will collect it: drop the job if it has not started, and any audio already stored.
      const removed = await this.queue.remove(requestId).catch(() => 0);
      if (removed === 1 && held && this.budgets) {
        const { keyId, budget } = held;
        const release = { keyId, requestId, day: budget.day, month: budget.month, tokens: 0, audioMs: 0 };
        await this.budgets.settle(release).catch(() => undefined);
      }
      await this.audio.delete(requestId).catch(() => undefined);
      return new ApiError(
        "SERVICE_UNAVAILABLE",
        `speech synthesis did not finish within ${this.timeoutMs / 1000} s; retry later`,
      );
    }
    return new ApiError("INTERNAL_ERROR", `speech synthesis failed: ${reason.slice(0, 300)}`);
  }
}
