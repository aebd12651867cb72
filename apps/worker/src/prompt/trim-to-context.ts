import type { ChatTurn } from "../engines/llm/llm-engine.js";

export interface ContextBudget {
  /** Tokens the engine holds for prompt and reply together. */
  contextTokens: number;
  /** Tokens reserved for the reply (max_tokens). */
  replyTokens: number;
  /** Tokens the prompt made from these turns takes (the engine's own count, template included). */
  countPromptTokens: (turns: ChatTurn[]) => Promise<number>;
}

export interface TrimmedConversation {
  turns: ChatTurn[];
  /** Conversation messages left out (the system turn is never dropped). */
  droppedMessages: number;
  /** Tokens of the prompt the kept turns make. */
  promptTokens: number;
  /** The kept prompt leaves the reply its tokens; false when even the newest message alone does not. */
  fits: boolean;
}

/**
 * Keeps the system turn and as many of the newest messages as fit beside the reply budget,
 * dropping the oldest first. The newest message always stays, even alone over budget (`fits`
 * false): the caller refuses such a conversation, or lets the engine truncate it. The prompt is
 * counted whole, as the engine renders it, so a kept conversation really fits: one that did not
 * would be shifted by the engine mid-prompt, which also throws away the slot's prompt cache.
 */
export async function trimToContext(turns: ChatTurn[], budget: ContextBudget): Promise<TrimmedConversation> {
  const system = turns[0]?.role === "system" ? [turns[0]] : [];
  const messages = turns.slice(system.length);
  const newest = (kept: number) => [...system, ...messages.slice(messages.length - kept)];
  const counted = new Map<number, number>();
  const count = async (kept: number) => {
    const tokens = counted.get(kept) ?? (await budget.countPromptTokens(newest(kept)));
    counted.set(kept, tokens);
    return tokens;
  };
  // Strictly less: node-llama-cpp keeps a conversation whole only with a token of the context free.
  const fits = async (kept: number) => (await count(kept)) + budget.replyTokens < budget.contextTokens;
  // Most conversations fit whole: one count. Otherwise the prompt grows with every message kept, so
  // the largest count that fits is found by bisection.
  if (await fits(messages.length))
    return { turns, droppedMessages: 0, promptTokens: await count(messages.length), fits: true };
  let [low, high] = [Math.min(1, messages.length), messages.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (await fits(middle)) low = middle;
    else high = middle - 1;
  }
  return {
    turns: newest(low),
    droppedMessages: messages.length - low,
    promptTokens: await count(low),
    fits: await fits(low),
  };
}
