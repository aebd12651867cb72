import type { GenerateTextJob } from "@chorus/contracts";
import type { Character } from "../characters/character-catalog.js";
import type { ChatTurn, LlmEngine } from "../engines/llm/llm-engine.js";
import type { GenerationFailure } from "../records/failure-message.js";
import { buildChatTurns } from "./build-chat-turns.js";
import { contextLengthExceeded, promptTooLong, replyBudget, replyTokens } from "./reply-budget.js";
import { trimToContext } from "./trim-to-context.js";

export interface FittedConversation {
  turns: ChatTurn[];
  droppedMessages: number;
  /** The reply's max_tokens, as the engine runs with it and the record states it. */
  maxTokens: number;
  /** Set when the job asked to be refused rather than cut, and even its newest message does not fit. */
  refusal: GenerationFailure | null;
}

/** The job's turns trimmed to the engine's context, and the reply's limit in what is left of it. */
export async function fitConversation(
  job: GenerateTextJob,
  character: Character,
  engine: Pick<LlmEngine, "contextTokens" | "countPromptTokens">,
  resolvedMaxTokens: number,
): Promise<FittedConversation> {
  const budget = replyBudget(job, { resolved: resolvedMaxTokens, modelDefault: character.sampling.max_tokens });
  const { contextTokens } = engine;
  const turns = buildChatTurns(job.request, character);
  const trim = (replyTokens: number) =>
    trimToContext(turns, { contextTokens, replyTokens, countPromptTokens: (kept) => engine.countPromptTokens(kept) });
  let trimmed = await trim(budget.reserve);
  if (!trimmed.fits && budget.leastReserve < budget.reserve) trimmed = await trim(budget.leastReserve);
  const refused = budget.refuseOverflow && !trimmed.fits;
  return {
    turns: trimmed.turns,
    droppedMessages: trimmed.droppedMessages,
    maxTokens: replyTokens(budget, contextTokens, trimmed.promptTokens),
    refusal: refused ? contextLengthExceeded(contextTokens, trimmed.promptTokens, budget.leastReserve) : null,
  };
}

/**
 * A raw prompt (/v1/completions) is never cut: its reply has what the context leaves, at most its
 * max_tokens, and a prompt that leaves too little is refused.
 */
export async function fitPrompt(
  job: GenerateTextJob,
  prompt: string,
  engine: Pick<LlmEngine, "contextTokens" | "countRawPromptTokens">,
  resolvedMaxTokens: number,
): Promise<FittedConversation> {
  const budget = replyBudget(job, { resolved: resolvedMaxTokens, modelDefault: resolvedMaxTokens });
  const { contextTokens } = engine;
  const promptTokens = (await engine.countRawPromptTokens?.(prompt)) ?? Math.ceil(prompt.length / 4);
  const fits = promptTokens + budget.leastReserve < contextTokens;
  return {
    turns: [],
    droppedMessages: 0,
    maxTokens: replyTokens(budget, contextTokens, promptTokens),
    refusal: fits ? null : promptTooLong(contextTokens, promptTokens, budget.leastReserve),
  };
}
