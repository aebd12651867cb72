import type { GenerationRequest, PriorityTier, SamplingParams } from "@chorus/contracts";

/**
 * Fair turns between API keys, weighted by what requests cost: the text queue's side of a request's
 * life (join, start, settle, leave) and its place in line (the scripts join-queue-8, start-turn-3,
 * settle-turn-1, leave-queue-5 and queue-place-3 in src/lua/). docs/architecture.md#fair-turns tells
 * the design: start-time fair queueing, where a request's turn is where its key's previous request
 * ends (that one's turn plus its cost), never earlier than one after the turn being served, and is
 * its BullMQ priority. A cost is at least one turn, so a key's requests never share a turn: a quiet
 * key's first request starts after about one request of each other busy key (at most two), however
 * many they have waiting and whatever they cost.
 *
 * The waiting set holds the same order (score = turn * 2^32 + ticket): a waiting request's rank there
 * is the number of requests that will start before it. BullMQ's priorities end at 2^21 - 1, so turns
 * are capped there, and the count starts over when the waiting set drains after turn 2^20.
 *
 * The same scripts keep each key's count of requests not yet final (the in-flight cap), and the
 * backlog list (one token per waiting request, for list-length autoscalers). Every key here is in the
 * text queue's hash slot (see redis-keys.ts), with BullMQ's own.
 */

/** BullMQ's highest job priority (its PRIORITY_LIMIT: a higher one is refused). */
export const LAST_TURN = 2 ** 21 - 1;
/** Past this turn the count starts over whenever no request waits. */
export const RESTART_TURNS_AFTER = 2 ** 20;

/**
 * The tokens one turn stands for. Coarse enough that an unbroken backlog of full-context requests
 * (4096 tokens: 64 turns) reaches RESTART_TURNS_AFTER only after some 16,000 of them; fine enough that a
 * 100-token request costs a fortieth of such a one.
 */
export const TOKENS_PER_TURN = 64;

/**
 * What one turn of a key's work counts in the queue's turns, by the key's priority tier: a key's
 * requests are spaced by their cost times its weight, so while keys of two tiers both have requests
 * waiting, a high key starts twice the work of a normal one and a low key half. Every weight is
 * finite, so every key keeps its share: no tier starves another. A normal key's turns are the
 * unweighted ones. A high key's positions fall on half turns: two of its requests may share a
 * turn (BullMQ's priority; arrival order within it).
 */
export const TIER_TURN_WEIGHT: Record<PriorityTier, number> = { high: 0.5, normal: 1, low: 2 };

/** The gateway has no tokenizer: about four characters a token, as for English text. */
const CHARS_PER_TOKEN = 4;

/** What `tokens` of work cost in turns: at least one, so a key's requests never share a turn. */
export function turnsForTokens(tokens: number): number {
  return Math.max(1, Math.ceil(Math.max(0, tokens) / TOKENS_PER_TURN));
}

/**
 * A request's cost as admission sees it: its text's tokens, estimated from characters, plus the most
 * it may generate (a /v1 request without the client's `max_tokens` runs up to its context-fit ceiling).
 */
export function estimatedTurnCost(request: GenerationRequest, clientSampling: Partial<SamplingParams> = {}): number {
  const chars =
    request.messages.reduce((sum, message) => sum + message.content.length, 0) +
    (request.persona?.length ?? 0) +
    (request.instructions?.length ?? 0);
  const reply =
    request.contextFit && clientSampling.max_tokens === undefined
      ? request.contextFit.ceiling
      : request.samplingParams.max_tokens;
  return turnsForTokens(Math.ceil(chars / CHARS_PER_TOKEN) + reply);
}

/**
 * What a finished request cost: the prompt tokens the engine evaluated, less those reused from its
 * cache, and the reply's.
 */
export function measuredTurnCost(used: { promptTokens: number; cachedTokens: number; tokens: number }): number {
  return turnsForTokens(used.promptTokens - used.cachedTokens + used.tokens);
}

/**
 * Batch lines take turns as a tenant of their own per key (`<key id>:batch`), each line's cost
 * multiplied by this weight: against a busy interactive key, a busy batch tenant starts about one
 * line per BATCH_TURN_WEIGHT + 1 jobs (of equal cost), never none (docs/batches.md#scheduling).
 */
export const BATCH_TURN_WEIGHT = 8;

/** A batch line's turn tenant and its cost in turns. */
export function batchTurns(keyId: string, cost: number): { tenant: string; cost: number } {
  return { tenant: `${keyId}:batch`, cost: cost * BATCH_TURN_WEIGHT };
}

/** A join: the request's ticket and turn (its job's priority), or the key's cap reached. */
export type QueueJoin =
  { joined: true; ticket: number; turn: number } | { joined: false; held: number; averageJobSeconds: number | null };

export function parseQueueJoin([first, second, third]: [number, number, string?]): QueueJoin {
  if (first === 0) return { joined: false, held: second, averageJobSeconds: third ? Number(third) : null };
  return { joined: true, ticket: first, turn: second };
}
