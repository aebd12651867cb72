import { randomUUID } from "node:crypto";
import {
  CANCELLED_ERROR,
  QUEUE_TIMEOUT_ERROR,
  REPLY_DELTA_INTERVAL_MS,
  type GenerateTextJob,
  type ModelId,
} from "@chorus/contracts";
import type { Logger } from "@chorus/platform/logger";
import type { JobTimeStats, StatusStore } from "@chorus/platform/scheduler";
import { UnrecoverableError, type Job } from "bullmq";
import type { ServedModel } from "../models/model-registry.js";
import { operatorTurns } from "../prompt/build-chat-turns.js";
import { fitConversation } from "../prompt/fit-conversation.js";
import { ProgressEstimator } from "../progress/progress-estimator.js";
import { ProgressReporter } from "../progress/progress-reporter.js";
import { ReplyDeltaPublisher, type PublishReplyDelta } from "../progress/reply-delta-publisher.js";
import type { GenerationProgress } from "../engines/llm/llm-engine.js";
import type { ReplyLengthStats } from "../progress/reply-length-stats.js";
import { GenerationFailure } from "../records/failure-message.js";
import { retryFinalWrite } from "../records/retry-final-write.js";
import { cleanPartialReply, cleanReply, replyFinishReason, stopSequencesFor } from "../engines/llm/stop-sequences.js";
import { refuseWhatEngineLacks, resolveSampling } from "./sampling.js";
import { speakReply, type ReplySpeechDeps } from "./speak-reply.js";

export interface GenerateTextDeps {
  modelFor: (model: ModelId) => ServedModel;
  statuses: StatusStore;
  replyLengths: ReplyLengthStats;
  jobTimes: JobTimeStats;
  logger: Logger;
  progressIntervalMs: number;
  /** Assumed token rate for the ETA before the first token arrives. */
  fallbackTokensPerSecond: number;
  /** A generation running longer than this is stopped and reported as an error. */
  jobTimeLimitMs: number;
  /** Speaks replies whose request asked for `speak` (absent: such a request gets `audioError`). */
  replySpeech?: ReplySpeechDeps | null;
  /** Publishes on the reply-delta channel, for jobs whose client streams the reply (absent: none is published). */
  publishReplyDelta?: PublishReplyDelta;
  /** Told of each reply once recorded: cache-aware routing publishes what this worker's engine now holds. */
  onReply?: (job: GenerateTextJob, reply: string) => void;
}

/** The publisher of a job whose client streams its reply, else null. */
function replyDeltas(
  job: Job<GenerateTextJob>,
  deps: GenerateTextDeps,
  stops: string[],
  attempt: string,
): ReplyDeltaPublisher | null {
  if (!job.data.streamReply || !deps.publishReplyDelta) return null;
  const reply = { id: job.data.requestId, attempt };
  return new ReplyDeltaPublisher(reply, deps.publishReplyDelta, REPLY_DELTA_INTERVAL_MS, stops);
}

/** The request's `maxQueueMs` has passed since the gateway accepted it (clocks kept in step, as for every TTL). */
function pastQueueDeadline(job: GenerateTextJob, now = Date.now()): boolean {
  const { maxQueueMs } = job.request;
  return maxQueueMs !== undefined && now > job.acceptedAt + maxQueueMs;
}

class TimeLimitExceeded extends Error {}

/** Why an aborted generation stopped, as a final (not retried) failure. */
function abortFailure(signal: AbortSignal): UnrecoverableError {
  if (signal.reason instanceof TimeLimitExceeded) return new GenerationFailure("timeout", signal.reason.message);
  return new UnrecoverableError(CANCELLED_ERROR);
}

function timeLimit(ms: number, signal?: AbortSignal): { signal: AbortSignal; clear: () => void } {
  const limit = new AbortController();
  const timer = setTimeout(
    () => limit.abort(new TimeLimitExceeded(`generation exceeded the time limit of ${ms / 1000} s`)),
    ms,
  );
  return { signal: signal ? AbortSignal.any([signal, limit.signal]) : limit.signal, clear: () => clearTimeout(timer) };
}

/** What a text job returns to BullMQ: the worker's metrics read it (worker-metrics.ts). */
export interface GenerationResult {
  tokens: number;
  processingTime: number;
  model: string;
  promptTokens: number;
  /** Of the prompt's tokens, those the engine reused from its cache. */
  cachedTokens: number;
}

/** Generates one reply, streaming progress into the status record, and stores the result. */
export function generateTextProcessor(deps: GenerateTextDeps) {
  return async (
    job: Job<GenerateTextJob>,
    _token?: string,
    signal?: AbortSignal,
  ): Promise<GenerationResult | undefined> => {
    const { requestId, model, request } = job.data;
    if (!requestId || !request?.messages) throw new UnrecoverableError("malformed job payload");
    const log = deps.logger.child({ jobId: requestId, keyId: job.data.keyId, model, attempt: job.attemptsMade + 1 });
    const startedAt = Date.now();
    const { engine, character } = deps.modelFor(model);
    const resolved = resolveSampling(job.data, character.sampling);
    refuseWhatEngineLacks(resolved, job.data, engine);
    // Past its queue deadline and not started by an earlier attempt: it ends here, unrun (the client asked to fail
    // fast rather than wait); started earlier, it runs to its end.
    if (pastQueueDeadline(job.data) && (await deps.statuses.expireUnstarted(requestId, QUEUE_TIMEOUT_ERROR)))
      return void log.info("skipped: its queue deadline passed before any worker started it");
    // The record is marked started while the prompt is built and counted (work in this process), so
    // the round trip to Redis costs the job no time; a skipped job wasted that work only.
    const [state, { turns, droppedMessages, maxTokens, refusal }] = await Promise.all([
      deps.statuses.markStarted(requestId),
      fitConversation(job.data, character, engine, resolved.maxTokens),
    ]);
    // Cancelled while queued, or already answered by an earlier attempt: nothing to do.
    if (state !== "processing")
      return void log.info(
        state ? "skipped: record already final" : "skipped: no status record (expired or never written)",
      );
    if (refusal) throw refusal;
    const sampling = { ...resolved, maxTokens };
    const expected = deps.replyLengths.expectedTokens(model, sampling.maxTokens);
    const estimator = new ProgressEstimator(expected, sampling.maxTokens, startedAt, deps.fallbackTokensPerSecond);
    // A progress write that finds the record final means it was cancelled (or answered elsewhere):
    // stop, even if the cancel message over pub/sub never arrived.
    const recordFinal = new AbortController();
    const stops = stopSequencesFor(request.stop);
    // This run of the job: its text so far (record and deltas) is told apart from another attempt's.
    const attempt = randomUUID();
    const writeProgress = async (progress: number, eta: number, text?: string) => {
      const partialReply = text === undefined ? undefined : { text: cleanPartialReply(text, stops), attempt };
      if (!(await deps.statuses.updateProgress(requestId, progress, eta, partialReply)))
        recordFinal.abort(new Error(CANCELLED_ERROR));
    };
    const reporter = new ProgressReporter(estimator, writeProgress, deps.progressIntervalMs);
    const deltas = replyDeltas(job, deps, stops, attempt);
    const stop = timeLimit(
      deps.jobTimeLimitMs,
      signal ? AbortSignal.any([signal, recordFinal.signal]) : recordFinal.signal,
    );

    log.info("generation started", { queuedMs: startedAt - job.data.acceptedAt, engine: engine.name, droppedMessages });
    try {
      const onProgress = ({ tokens, text }: GenerationProgress) => {
        reporter.onTokens(tokens, text);
        if (text !== undefined) deltas?.onText(text);
      };
      const result = await engine.generate({
        turns,
        sampling,
        signal: stop.signal,
        onProgress,
        cacheScope: { owner: job.data.keyId, sharedTurns: operatorTurns(character) },
        ...(request.stop ? { stop: request.stop } : {}),
        ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
        ...(deltas ? { streamText: true } : {}),
      });
      deltas?.stop();
      await reporter.settle();
      const processingTime = (Date.now() - startedAt) / 1000;
      const reply = cleanReply(result.text, stops);
      const { tokens, promptTokens, cachedTokens } = result;
      const spoken = request.speak
        ? await speakReply(deps.replySpeech, {
            requestId,
            model,
            reply,
            speak: request.speak,
            signal: stop.signal,
            log,
          })
        : { record: {} };
      // A reply that cannot be written is not thrown away at the first error: a failed attempt would
      // generate it all over again.
      const onRetry = (error: unknown, attempt: number) =>
        log.warn("could not record reply; retrying", { attempt, error: String(error) });
      // The store meters the job into its key's usage as it writes the record: once, whoever writes it.
      await retryFinalWrite(
        () =>
          deps.statuses.complete(requestId, {
            reply,
            tokens,
            promptTokens,
            cachedTokens,
            processingTime,
            droppedMessages,
            finishReason: replyFinishReason(result.text, result.finishReason, stops),
            maxTokens: sampling.maxTokens,
            ...spoken.record,
            ...(spoken.spoken && { spoken: spoken.spoken }),
          }),
        { onRetry },
      );
      deps.onReply?.(job.data, reply);
      deps.replyLengths.record(model, result.tokens);
      void deps.jobTimes.record(processingTime);
      log.info("generation completed", { tokens, promptTokens, cachedTokens, processingTime });
      return { tokens: result.tokens, processingTime, model, promptTokens, cachedTokens };
    } catch (error) {
      throw stop.signal.aborted ? abortFailure(stop.signal) : error;
    } finally {
      stop.clear();
      deltas?.stop();
    }
  };
}
