import type { GenerateTextJob } from "@chorus/contracts";
import { GenerationFailure } from "../records/failure-message.js";

/** How many tokens a job's reply may take, before and after its prompt is known. */
export interface ReplyBudget {
  /** Tokens trimming keeps free for the reply. */
  reserve: number;
  /** Where even the newest message leaves less than `reserve`: the room trimming keeps at the least. */
  leastReserve: number;
  /** The most the reply may take where the context leaves room for it. */
  limit: number;
  /** A conversation whose system turn and last message leave no `leastReserve` is refused, not cut. */
  refuseOverflow: boolean;
}

/**
 * A native job's reply has its max_tokens (the client's, else the model's default), reserved whole.
 * A /v1 job (`contextFit`) with the client's max_tokens has that, reserved whole where the newest
 * messages allow, else at least the model's default (clients often send a large max_tokens
 * whatever the model); without one it runs to the end of the context, at most the deployment's
 * ceiling, and trimming reserves the model's default.
 */
export function replyBudget(job: GenerateTextJob, maxTokens: { resolved: number; modelDefault: number }): ReplyBudget {
  const fit = job.request.contextFit;
  if (!fit) {
    const tokens = maxTokens.resolved;
    return { reserve: tokens, leastReserve: tokens, limit: tokens, refuseOverflow: false };
  }
  const least = Math.min(maxTokens.modelDefault, fit.ceiling);
  const sent = job.clientSampling?.max_tokens;
  if (sent !== undefined)
    return { reserve: sent, leastReserve: Math.min(sent, least), limit: sent, refuseOverflow: true };
  return { reserve: least, leastReserve: least, limit: fit.ceiling, refuseOverflow: true };
}

/**
 * The reply's max_tokens once the prompt is counted: at most what the context has left (one token
 * stays free), so the limit the engine runs with, and the record states, is the one that can be
 * reached. A prompt over the context on its own (a native job's newest message) keeps `limit`: the
 * engine then cuts the prompt, as before.
 */
export function replyTokens(budget: ReplyBudget, contextTokens: number, promptTokens: number): number {
  const room = contextTokens - promptTokens - 1;
  return room >= 1 ? Math.min(budget.limit, room) : budget.limit;
}

/** The failure of a /v1 conversation the context cannot hold: the system turn and last message, and a reply. */
export function contextLengthExceeded(contextTokens: number, promptTokens: number, reserve: number): GenerationFailure {
  return new GenerationFailure(
    "context_length_exceeded",
    `this model's maximum context length is ${contextTokens} tokens; the system prompt and the last message ` +
      `take ${promptTokens}, which leaves no room for a reply of ${reserve}: shorten them (or ask for fewer max_tokens)`,
  );
}

/** The failure of a raw prompt (/v1/completions) the context cannot hold beside its reply. */
export function promptTooLong(contextTokens: number, promptTokens: number, reserve: number): GenerationFailure {
  return new GenerationFailure(
    "context_length_exceeded",
    `this model's maximum context length is ${contextTokens} tokens; the prompt takes ${promptTokens}, ` +
      `which leaves no room for a reply of ${reserve}: shorten it (or ask for fewer max_tokens)`,
  );
}
