/**
 * Bounds the spec fixes, and the maxima it leaves open ("not shown"), chosen here and documented in
 * docs/api.md. Validation, the gateway's body parser and the docs all read them from this one place.
 */
export const SAMPLING_BOUNDS = {
  maxTokens: { min: 1, max: 2048, default: 150 },
  temperature: { min: 0.1, max: 2.0, default: 0.7 },
  topP: { exclusiveMin: 0, max: 1, default: 0.9 },
  /** An extension of the contract: no default, each job without one draws a random seed. */
  seed: { min: 0, max: 2 ** 32 - 1 },
  /** Extensions (OpenAI's, llama.cpp's): no defaults, absent means the engine's neutral value. */
  presencePenalty: { min: -2, max: 2 },
  frequencyPenalty: { min: -2, max: 2 },
  /** 0 turns top-k off, as in llama.cpp. */
  topK: { min: 0, max: 1000 },
  minP: { min: 0, max: 1 },
  repetitionPenalty: { exclusiveMin: 0, max: 2 },
  typicalP: { exclusiveMin: 0, max: 1 },
  /** logit_bias: token id -> bias, at most maxEntries of them (OpenAI's bounds). */
  logitBias: { min: -100, max: 100, maxEntries: 300 },
} as const;

export const REQUEST_LIMITS = {
  /** Messages in one generation request. */
  maxMessages: 200,
  /** Characters in one message's content. */
  maxMessageChars: 8000,
  /** Characters in `persona` (the spec recommends 100-300 words, about 600-2000 characters). */
  maxPersonaChars: 4000,
  maxBotNameChars: 100,
  /** Characters in identifier fields (`id`, `chatId`, `userId`) and `image`. */
  maxIdChars: 200,
  maxImageUrlChars: 2048,
  /** Characters of a `webhook` URL. */
  maxWebhookUrlChars: 2048,
  /** `stop` on /v1/chat/completions: sequences, as OpenAI allows, and characters in each. */
  maxStopSequences: 4,
  maxStopChars: 100,
  /** `maxQueueMs` (or `Prefer: wait-queue=<s>`): the longest a request may wait in the queue before it starts, ms. */
  queueDeadlineMs: { min: 100, max: 86_400_000 },
  /** Whole JSON body, as accepted by the gateway's parser (express/body-parser syntax). */
  maxBodyBytes: 1024 * 1024,
} as const;

export const DEFAULT_BOT_NAME = "Assistant";
