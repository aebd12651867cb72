import { type SpeakReplyJob } from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import { UnrecoverableError, type Job } from "bullmq";
import { recordReply, type RecordReplyDeps } from "../records/record-reply.js";
import { settleAsRecorded } from "../records/settle-budget.js";
import { speakReply, type ReplySpeechDeps } from "./speak-reply.js";

export interface SpokenReplyDeps extends RecordReplyDeps {
  replySpeech: ReplySpeechDeps;
  logger: Logger;
}

/** What a spoken reply's job returns: the fields the worker's speech metrics read (absent: nothing was spoken). */
export interface SpokenReplyResult {
  format: string;
  durationSeconds: number;
}

/**
 * A generated reply, handed over by its text job (`speak`), spoken in a speech slot and recorded with
 * its audio (or `audioError`): the request's record turns `completed` here. A request cancelled while
 * its reply waited is skipped; one cancelled while spoken is aborted (cancellation-listener.ts).
 */
export function spokenReplyProcessor(deps: SpokenReplyDeps) {
  return async (
    job: Job<SpeakReplyJob>,
    _token?: string,
    signal?: AbortSignal,
  ): Promise<SpokenReplyResult | undefined> => {
    const { requestId, keyId, model, speak, reply } = job.data;
    if (!requestId || typeof reply?.reply !== "string") throw new UnrecoverableError("malformed job payload");
    const log = deps.logger.child({ jobId: requestId, keyId, model, attempt: job.attemptsMade + 1, spoken: true });
    const stored = await deps.statuses.get(requestId);
    if (stored?.record.status !== "processing") {
      // Settled as its record says: the attempt that wrote it may have died before settling.
      await settleAsRecorded(deps, job.data, stored !== null, log);
      return void log.info("skipped: record already final or gone");
    }
    const spoken = await speakReply(deps.replySpeech, {
      requestId,
      model,
      reply: reply.reply,
      speak,
      signal: signal ?? new AbortController().signal,
      log,
    });
    await recordReply(deps, job.data, { ...reply, ...spoken.record }, spoken.spoken, log);
    log.info("spoken reply recorded", { spoken: spoken.record.audioUrl !== undefined });
    return spoken.record.audioUrl === undefined
      ? undefined
      : { format: speak.format, durationSeconds: spoken.spoken?.audioSeconds ?? 0 };
  };
}
