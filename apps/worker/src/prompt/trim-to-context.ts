import type { ChatTurn } from "../engines/llm/llm-engine.js";

export interface ContextBudget {
  /** Tokens the engine holds for prompt and reply together. */
  contextTokens: number;
  /** Tokens reserved for the reply (max_tokens). */
  replyTokens: number;
  countTokens: (text: string) => number;
}

/** Role markers and separators a chat template adds around each turn (a safe over-estimate). */
const TURN_OVERHEAD_TOKENS = 8;

export interface TrimmedConversation {
  turns: ChatTurn[];
  /** Conversation messages left out (the system turn is never dropped). */
  droppedMessages: number;
}

/**
 * Keeps the system turn and as many of the newest messages as fit beside the reply budget,
 * dropping the oldest first. The newest message always stays, even alone over budget: the engine
 * then truncates, which beats answering a conversation without its question.
 */
export function trimToContext(turns: ChatTurn[], budget: ContextBudget): TrimmedConversation {
  const system = turns[0]?.role === "system" ? [turns[0]] : [];
  const messages = turns.slice(system.length);
  const cost = (turn: ChatTurn) => budget.countTokens(turn.content) + TURN_OVERHEAD_TOKENS;
  let available = budget.contextTokens - budget.replyTokens - system.reduce((sum, t) => sum + cost(t), 0);
  let kept = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    available -= cost(messages[i] as ChatTurn);
    if (available < 0 && kept > 0) break;
    kept++;
  }
  return { turns: [...system, ...messages.slice(messages.length - kept)], droppedMessages: messages.length - kept };
}
