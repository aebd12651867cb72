import type { ModelId } from "../models.js";
import type { AudioFormat } from "../speech/audio-formats.js";
import type { VoiceId } from "../speech/voices.js";
import type { WebhookEvent } from "../webhooks/webhook-events.js";
import type { ResponseFormat } from "./response-format.js";
import type { SamplingKnobs } from "./sampling-knobs.js";

export type MessageRole = "You" | "Bot";

export interface Message {
  role: MessageRole;
  content: string;
  /** Position in the conversation; on `default` `messageIndex` may stand in for it. */
  index?: number;
  id?: string;
  messageIndex?: number;
  chatId?: string;
  userId?: string;
  createdAt?: string;
  upvote?: number;
  image?: string | null;
}

/** The contract's fields, and the extensions (SamplingKnobs) that engines honour where they can. */
export interface SamplingParams extends SamplingKnobs {
  max_tokens: number;
  /** 0 only from /v1 (OpenAI's greedy): the most likely token every time. */
  temperature: number;
  top_p: number;
  /** Extension: the same seed, request, model and engine give the same reply. Absent: a random seed per job. */
  seed?: number;
}

/** Extension: speak the reply. After validation `format` and `speed` are filled in. */
export interface SpeakOptions {
  /** Absent: the character's own voice (DEFAULT_VOICE for `default`), see defaultVoiceFor. */
  voice?: VoiceId;
  format: AudioFormat;
  speed: number;
}

/** A generation request after validation: defaults filled, messages ordered by position. */
export interface GenerationRequest {
  messages: Message[];
  persona?: string;
  /** Always set by the native API; absent (from /v1/chat/completions) the character's own name is used. */
  botName?: string;
  /**
   * Only from /v1/chat/completions: its system and developer messages, added to the
   * system turn after the persona, which they never replace. Not a field of the native body.
   */
  instructions?: string;
  /**
   * Only from /v1/chat/completions: the client's stop sequences, on top of the turn
   * markers every reply stops before. The reply ends before the first of them it would contain.
   */
  stop?: string[];
  /**
   * Only from /v1/chat/completions: the reply fits the model's context. Without the client's
   * max_tokens it runs until the model stops or the context is full, at most `ceiling` tokens
   * (the gateway's MAX_COMPLETION_TOKENS); a conversation whose system turn and last message leave
   * no room for a reply is refused (`context_length_exceeded`) instead of being cut by the engine.
   */
  contextFit?: { ceiling: number };
  samplingParams: SamplingParams;
  /** Extension: the reply is JSON of this form (constrained sampling). */
  responseFormat?: ResponseFormat;
  /** Extension: where the final record is delivered, signed. */
  webhook?: string;
  /** Extension: which ends are delivered (default: completed and error, not the client's own cancel). */
  webhookEvents?: WebhookEvent[];
  /**
   * Extension: the request ends as `error` (`errorCode: queue_timeout`) if no worker has started it
   * this many ms after it was accepted; refused at once (429 QUEUE_TIMEOUT) when the queue's estimate
   * already says it would not start in time.
   */
  maxQueueMs?: number;
  /** Extension: synthesize the reply as well. */
  speak?: SpeakOptions;
}

export interface SubmitResponse {
  id: string;
  tokens: -1;
}

export type { ModelId };
