import { randomUUID } from "node:crypto";
import {
  CANCELLED_ERROR,
  QUEUE_TIMEOUT_ERROR,
  REPLY_DELTA_INTERVAL_MS,
  type GenerateTextJob,
  type ModelId,
  type SpeakOptions,
  type SpeakReplyJob,
} from "@chorus/contracts";
import type { UsageBudgetLedger } from "@chorus/platform/budgets";
import type { Logger } from "@chorus/platform/logger";
import type { JobTimeStats, StatusStore } from "@chorus/platform/scheduler";
import { UnrecoverableError, type Job } from "bullmq";
import type { ServedModel } from "../models/model-registry.js";
import { operatorTurns } from "../prompt/build-chat-turns.js";
import { fitConversation, fitPrompt } from "../prompt/fit-conversation.js";
import { forcedCallFormat, toolCallIn } from "../prompt/tool-calls.js";
import { ProgressEstimator } from "../progress/progress-estimator.js";
import { ProgressReporter } from "../progress/progress-reporter.js";
import { ReplyDeltaPublisher, type PublishReplyDelta } from "../progress/reply-delta-publisher.js";
import type { GenerationProgress } from "../engines/llm/llm-engine.js";
import type { ReplyLengthStats } from "../progress/reply-length-stats.js";
import { GenerationFailure } from "../records/failure-message.js";
import { retryFinalWrite } from "../records/retry-final-write.js";
import { NOTHING_USED, settleAsRecorded, settleJobBudget } from "../records/settle-budget.js";
import { recordReply } from "../records/record-reply.js";
import { cleanPartialReply, cleanReply, jobStopSequences, replyFinishReason } from "../engines/llm/stop-sequences.js";
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
  /**
   * Hands a reply to speak to the speech queue (a worker that runs one), where it waits for a speech
   * slot and is recorded: the text slot is free meanwhile. Absent: replies are spoken here, in the text slot.
   */
  speakLater?: ((job: SpeakReplyJob) => Promise<void>) | null;
  /** Per-key usage budgets: each job's end settles what it held (docs/usage.md). */
  budgets: UsageBudgetLedger;
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
  // With tools, whether the reply is text or a call is known only at its end: no text is shown before.
  if (!job.data.streamReply || !deps.publishReplyDelta || job.data.request.tools) return null;
  const reply = { id: job.data.requestId, attempt };
  const raw = job.data.request.prompt !== undefined;
  return new ReplyDeltaPublisher(reply, deps.publishReplyDelta, REPLY_DELTA_INTERVAL_MS, stops, Date.now, raw);
}

/**
 * The job's prompt fitted to the engine's context: a raw prompt as it is, a conversation trimmed. An
 * engine that takes tools as such is sent them apart: they are not stated in its system turn.
 */
function fitJob(job: GenerateTextJob, model: ServedModel, maxTokens: number) {
  const { prompt, tools, ...request } = job.request;
  if (prompt !== undefined) return fitPrompt(job, prompt, model.engine, maxTokens);
  const prompted = tools && !model.engine.takesTools ? { ...job, request: { ...request, tools } } : { ...job, request };
  return fitConversation(prompted, model.character, model.engine, maxTokens);
}

/** How the engine gets the job's tools: as such, or as a forced call's form (the prompt states them). */
function toolsFor(request: GenerateTextJob["request"], engine: ServedModel["engine"]) {
  if (!request.tools) return {};
  if (engine.takesTools) return { tools: request.tools };
  const forced = forcedCallFormat(request.tools);
  return forced ? { responseFormat: forced } : {};
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

type RecordedReply = SpeakReplyJob["reply"];

/** The reply goes to the speech queue; its job records it once spoken. Retried as a final write is. */
async function handOffSpeech(
  speakLater: (job: SpeakReplyJob) => Promise<void>,
  { requestId, keyId, model, turnCost, turnWeight, acceptedAt, budget }: GenerateTextJob,
  speak: SpeakOptions,
  reply: RecordedReply,
  log: Logger,
): Promise<void> {
  const job: SpeakReplyJob = {
    requestId,
    keyId,
    model,
    speak,
    reply,
    acceptedAt,
    ...(turnCost === undefined ? {} : { turnCost }),
    ...(turnWeight === undefined ? {} : { turnWeight }),
    ...(budget === undefined ? {} : { budget }),
  };
  const onRetry = (error: unknown, attempt: number) =>
    log.warn("could not hand the reply to the speech queue; retrying", { attempt, error: String(error) });
  await retryFinalWrite(() => speakLater(job), { onRetry });
  log.info("reply handed to the speech queue to be spoken");
}

/** The reply is recorded by its text job: spoken first in this slot where `speak` asks (and no speech queue runs). */
async function recordHere(
  deps: GenerateTextDeps,
  data: GenerateTextJob,
  reply: RecordedReply,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  const { requestId, model, request } = data;
  const spoken = request.speak
    ? await speakReply(deps.replySpeech, { requestId, model, reply: reply.reply, speak: request.speak, signal, log })
    : null;
  await recordReply(deps, data, { ...reply, ...spoken?.record }, spoken?.spoken, log);
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
    const served = deps.modelFor(model);
    const { engine, character } = served;
    const resolved = resolveSampling(job.data, character.sampling);
    refuseWhatEngineLacks(resolved, job.data, engine);
    // Past its queue deadline and not started by an earlier attempt: it ends here, unrun (the client asked to fail
    // fast rather than wait); started earlier, it runs to its end.
    if (pastQueueDeadline(job.data) && (await deps.statuses.expireUnstarted(requestId, QUEUE_TIMEOUT_ERROR))) {
      await settleJobBudget(deps.budgets, job.data, NOTHING_USED, log);
      return void log.info("skipped: its queue deadline passed before any worker started it");
    }
    const raw = request.prompt !== undefined;
    // The record is marked started while the prompt is built and counted (work in this process), so
    // the round trip to Redis costs the job no time; a skipped job wasted that work only.
    const [state, { turns, droppedMessages, maxTokens, refusal }] = await Promise.all([
      deps.statuses.markStarted(requestId),
      fitJob(job.data, served, resolved.maxTokens),
    ]);
    // Cancelled while queued, or already answered by an earlier attempt: nothing to do but settle
    // its budget as its record says (an attempt that wrote the record may have died before settling).
    if (state !== "processing") {
      await settleAsRecorded(deps, job.data, state !== null, log);
      return void log.info(
        state ? "skipped: record already final" : "skipped: no status record (expired or never written)",
      );
    }
    if (refusal) throw refusal;
    const sampling = { ...resolved, maxTokens };
    const expected = deps.replyLengths.expectedTokens(model, sampling.maxTokens);
    const estimator = new ProgressEstimator(expected, sampling.maxTokens, startedAt, deps.fallbackTokensPerSecond);
    // A progress write that finds the record final means it was cancelled (or answered elsewhere):
    // stop, even if the cancel message over pub/sub never arrived.
    const recordFinal = new AbortController();
    const stops = jobStopSequences(request);
    // This run of the job: its text so far (record and deltas) is told apart from another attempt's.
    const attempt = randomUUID();
    const writeProgress = async (progress: number, eta: number, text?: string) => {
      const shown = text !== undefined && !request.tools;
      const partialReply = shown ? { text: cleanPartialReply(text, stops, raw), attempt } : undefined;
      if (!(await deps.statuses.updateProgress(requestId, progress, eta, partialReply)))
        recordFinal.abort(new Error(CANCELLED_ERROR));
    };
    const reporter = new ProgressReporter(estimator, writeProgress, deps.progressIntervalMs);
    if (job.data.batchLine) reporter.deferFirstWrite();
    const deltas = replyDeltas(job, deps, stops, attempt);
    const stop = timeLimit(
      deps.jobTimeLimitMs,
      signal ? AbortSignal.any([signal, recordFinal.signal]) : recordFinal.signal,
    );

    log.info("generation started", { queuedMs: startedAt - job.data.acceptedAt, engine: engine.name, droppedMessages });
    try {
      const onProgress = ({ tokens, text }: GenerationProgress) => {
        // The delta first: on the one connection both use, a progress write queued ahead of it (a
        // script, and its status-changed message the gateway reads on) would delay the first text.
        if (text !== undefined) deltas?.onText(text);
        reporter.onTokens(tokens, text);
      };
      const { responseFormat, tools } = { responseFormat: request.responseFormat, ...toolsFor(request, engine) };
      const result = await engine.generate({
        turns,
        ...(raw ? { rawPrompt: request.prompt } : {}),
        sampling,
        signal: stop.signal,
        onProgress,
        cacheScope: { owner: job.data.keyId, sharedTurns: operatorTurns(character) },
        ...(request.stop ? { stop: request.stop } : {}),
        ...(responseFormat ? { responseFormat } : {}),
        ...(tools ? { tools } : {}),
        ...(deltas ? { streamText: true } : {}),
      });
      deltas?.stop();
      await reporter.settle();
      const processingTime = (Date.now() - startedAt) / 1000;
      const text = cleanReply(result.text, stops, raw);
      // Whether the reply is a call is decided here, once, and recorded: every door reads the record.
      const prompted = request.tools && !result.toolCalls ? toolCallIn(text, request.tools) : null;
      const toolCalls = result.toolCalls ?? (prompted ? [prompted] : undefined);
      const reply = toolCalls ? "" : text;
      const { tokens, promptTokens, cachedTokens } = result;
      const completion = {
        reply,
        tokens,
        promptTokens,
        cachedTokens,
        processingTime,
        droppedMessages,
        finishReason: replyFinishReason(result.text, result.finishReason, stops),
        maxTokens: sampling.maxTokens,
        ...(toolCalls ? { toolCalls } : {}),
      };
      if (request.speak && deps.speakLater)
        await handOffSpeech(deps.speakLater, job.data, request.speak, completion, log);
      else await recordHere(deps, job.data, completion, stop.signal, log);
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
