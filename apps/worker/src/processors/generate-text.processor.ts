import { CANCELLED_ERROR, type GenerateTextJob } from "@chorus/contracts";
import type { Logger, StatusStore } from "@chorus/platform";
import { UnrecoverableError, type Job } from "bullmq";
import type { CharacterCatalog } from "../characters/character-catalog.js";
import type { LlmEngine } from "../engines/llm/llm-engine.js";
import { buildChatTurns } from "../prompt/build-chat-turns.js";
import { ProgressEstimator } from "../progress/progress-estimator.js";
import { ProgressReporter } from "../progress/progress-reporter.js";

export interface GenerateTextDeps {
  engineFor: (job: GenerateTextJob) => LlmEngine;
  characters: CharacterCatalog;
  statuses: StatusStore;
  logger: Logger;
  progressIntervalMs: number;
  /** Assumed token rate for the ETA before the first token arrives. */
  fallbackTokensPerSecond: number;
  /** A generation running longer than this is stopped and reported as an error. */
  jobTimeLimitMs: number;
}

class TimeLimitExceeded extends Error {}

/** Why an aborted generation stopped, as a final (not retried) failure. */
function abortFailure(signal: AbortSignal): UnrecoverableError {
  if (signal.reason instanceof TimeLimitExceeded) return new UnrecoverableError(signal.reason.message);
  return new UnrecoverableError(CANCELLED_ERROR);
}

/** Generates one reply, streaming progress into the status record, and stores the result. */
export function generateTextProcessor(deps: GenerateTextDeps) {
  return async (job: Job<GenerateTextJob>, _token?: string, signal?: AbortSignal): Promise<void> => {
    const { requestId, model, request } = job.data;
    if (!requestId || !request?.messages) throw new UnrecoverableError("malformed job payload");
    const log = deps.logger.child({ jobId: requestId, keyId: job.data.keyId, model, attempt: job.attemptsMade + 1 });
    // Cancelled while queued, or already answered by an earlier attempt: nothing to do.
    if (!(await deps.statuses.isProcessing(requestId))) return void log.info("skipped: record already final");

    const startedAt = Date.now();
    const maxTokens = request.samplingParams.max_tokens;
    const estimator = new ProgressEstimator(maxTokens, maxTokens, startedAt, deps.fallbackTokensPerSecond);
    const reporter = new ProgressReporter(estimator, (p, eta) => deps.statuses.updateProgress(requestId, p, eta), deps.progressIntervalMs);
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(new TimeLimitExceeded(`generation exceeded the time limit of ${deps.jobTimeLimitMs / 1000} s`)), deps.jobTimeLimitMs);
    const stop = signal ? AbortSignal.any([signal, limit.signal]) : limit.signal;

    log.info("generation started", { queuedMs: startedAt - job.data.acceptedAt });
    try {
      const result = await deps.engineFor(job.data).generate({
        turns: buildChatTurns(request, deps.characters[model]),
        sampling: { maxTokens, temperature: request.samplingParams.temperature, topP: request.samplingParams.top_p },
        signal: stop,
        onProgress: ({ tokens }) => reporter.onTokens(tokens),
      });
      await reporter.settle();
      const processingTime = (Date.now() - startedAt) / 1000;
      await deps.statuses.complete(requestId, { reply: result.text.trim(), tokens: result.tokens, promptTokens: result.promptTokens, processingTime });
      log.info("generation completed", { tokens: result.tokens, promptTokens: result.promptTokens, processingTime });
    } catch (error) {
      throw stop.aborted ? abortFailure(stop) : error;
    } finally {
      clearTimeout(timer);
    }
  };
}
