import type { GenerateTextJob } from "@chorus/contracts";
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
}

/** Generates one reply, streaming progress into the status record, and stores the result. */
export function generateTextProcessor(deps: GenerateTextDeps) {
  return async (job: Job<GenerateTextJob>, _token?: string, signal?: AbortSignal): Promise<void> => {
    const { requestId, model, request } = job.data;
    if (!requestId || !request?.messages) throw new UnrecoverableError("malformed job payload");
    const log = deps.logger.child({ jobId: requestId, keyId: job.data.keyId, model, attempt: job.attemptsMade + 1 });
    const startedAt = Date.now();
    const maxTokens = request.samplingParams.max_tokens;
    const estimator = new ProgressEstimator(maxTokens, maxTokens, startedAt, deps.fallbackTokensPerSecond);
    const reporter = new ProgressReporter(estimator, (p, eta) => deps.statuses.updateProgress(requestId, p, eta), deps.progressIntervalMs);

    log.info("generation started", { queuedMs: startedAt - job.data.acceptedAt });
    const result = await deps.engineFor(job.data).generate({
      turns: buildChatTurns(request, deps.characters[model]),
      sampling: { maxTokens, temperature: request.samplingParams.temperature, topP: request.samplingParams.top_p },
      signal: signal ?? new AbortController().signal,
      onProgress: ({ tokens }) => reporter.onTokens(tokens),
    });
    await reporter.settle();
    const processingTime = (Date.now() - startedAt) / 1000;
    const reply = result.text.trim();
    await deps.statuses.complete(requestId, { reply, tokens: result.tokens, promptTokens: result.promptTokens, processingTime });
    log.info("generation completed", { tokens: result.tokens, promptTokens: result.promptTokens, processingTime });
  };
}
