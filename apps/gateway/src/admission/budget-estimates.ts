import {
  SAMPLING_BOUNDS,
  SPEECH_LIMITS,
  type GenerationRequest,
  type SamplingParams,
  type SpeechRequest,
  type TokenBounds,
} from "@chorus/contracts";
import type { BudgetAsk } from "@chorus/platform/budgets";

/**
 * What a request may use at most, as admission holds it against a key's usage budgets
 * (docs/usage.md says how close each figure is, and what follows when it is low).
 */

/**
 * Where the model's workers have not published its token bounds: characters a prompt token stands
 * for, about 4 for English through the usual BPE and SentencePiece vocabularies (an estimate).
 */
export const PROMPT_CHARS_PER_TOKEN = 4;
/** Tokens a chat template adds around each message (its role and turn markers). */
export const TEMPLATE_TOKENS_PER_MESSAGE = 4;
/**
 * Characters of speech per second of audio at speed 1. eSpeak NG at its 175 words a minute speaks
 * about 15; fewer here holds more, so a slow sentence is rarely under-held.
 */
export const SPEECH_CHARS_PER_SECOND = 12;
/** Characters one reply token may carry when a spoken reply (`speak`) is held before it exists. */
export const REPLY_CHARS_PER_TOKEN = 4;

const codePoints = (text: string | undefined) => (text === undefined ? 0 : [...text].length);

const MACRO_CHAR = /\{\{\s*char\s*\}\}/gi;
const bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text, "utf8"));

/**
 * UTF-8 bytes of what the request puts in the prompt: its messages, and its persona and
 * instructions with `{{char}}` as the bot name, and the bot name where the system turn says it (3
 * times). A token stands for at least one byte, so this bounds the tokens of the request's text.
 */
export function promptTextBytes(request: GenerationRequest): number {
  const botName = bytes(request.botName);
  const expanded = (text: string | undefined) => bytes(text) + (text?.match(MACRO_CHAR)?.length ?? 0) * botName;
  const messages = request.messages.reduce((sum, m) => sum + bytes(m.content), 0);
  return messages + expanded(request.persona) + expanded(request.instructions) + 3 * botName;
}

/**
 * The prompt's most, from the model's token bounds: its empty conversation, each further message's
 * template, and at most a token per byte of the request's text. Never more than the context holds.
 */
export function promptTokensBound(request: GenerationRequest, bounds: TokenBounds): number {
  const messages = Math.max(0, request.messages.length - 1) * bounds.messageTokens;
  return bounds.promptTokens + messages + promptTextBytes(request);
}

/** The prompt's tokens, estimated from what the request sends (the character's own prompt is the worker's). */
export function promptTokensEstimate(request: GenerationRequest): number {
  const chars =
    request.messages.reduce((sum, m) => sum + codePoints(m.content), 0) +
    codePoints(request.persona) +
    codePoints(request.instructions) +
    codePoints(request.botName);
  return Math.ceil(chars / PROMPT_CHARS_PER_TOKEN) + TEMPLATE_TOKENS_PER_MESSAGE * (request.messages.length + 1);
}

/**
 * The reply's most: the client's max_tokens; else on /v1 the deployment's ceiling, on the native
 * API the model's default as its workers published it (the contract's maximum until they have).
 */
export function replyTokensMost(
  request: GenerationRequest,
  clientSampling: Partial<SamplingParams>,
  bounds: TokenBounds | undefined,
): number {
  if (clientSampling.max_tokens !== undefined) return clientSampling.max_tokens;
  if (request.contextFit) return request.contextFit.ceiling;
  return bounds?.defaultMaxTokens ?? SAMPLING_BOUNDS.maxTokens.max;
}

/** Milliseconds of audio `chars` characters may take at `speed`. */
export function audioMsEstimate(chars: number, speed: number): number {
  return Math.ceil((chars / (SPEECH_CHARS_PER_SECOND * speed)) * 1000);
}

/**
 * A text request's most: its prompt and reply, bounded by the model's context where its workers
 * published their token bounds (else estimated); with `speak`, the reply spoken (bounded as the
 * worker bounds it).
 */
export function textAsk(
  request: GenerationRequest,
  clientSampling: Partial<SamplingParams>,
  bounds: TokenBounds | undefined,
): BudgetAsk {
  const reply = replyTokensMost(request, clientSampling, bounds);
  const tokens = bounds
    ? Math.min(bounds.contextTokens, promptTokensBound(request, bounds) + reply)
    : promptTokensEstimate(request) + reply;
  const spokenChars = Math.min(reply * REPLY_CHARS_PER_TOKEN, SPEECH_LIMITS.textMaxChars);
  return { tokens, audioMs: request.speak ? audioMsEstimate(spokenChars, request.speak.speed) : 0 };
}

/** A speech request's most: its text's audio. */
export function speechAsk(request: SpeechRequest): BudgetAsk {
  return { tokens: 0, audioMs: audioMsEstimate(codePoints(request.text), request.speed) };
}
