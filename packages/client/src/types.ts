// The API's shapes as a client sends and receives them (GET /openapi.json is the reference). Written
// here rather than imported from the service's contracts package, which is private: a published
// client must stand alone.

/** The public text models (the last segment of `/api/text/{model}`). */
export type ModelId = "default" | "Witch" | "Mage" | "Succubus" | "Lightning";

export interface Message {
  role: "You" | "Bot";
  content: string;
  index?: number;
  id?: string;
  messageIndex?: number;
  chatId?: string;
  userId?: string;
  createdAt?: string;
  upvote?: number;
  image?: string | null;
}

export interface SamplingParams {
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  /** The same seed, request, model and engine give the same reply. */
  seed?: number;
}

/** The body of a submit. `default` needs only `messages`; character models also `botName` and every message field. */
export interface GenerationRequest {
  messages: Message[];
  persona?: string;
  botName?: string;
  samplingParams?: SamplingParams;
  /** Where the final record is POSTed, signed with the key's own secret (Standard Webhooks; docs/api.md, Webhooks). */
  webhook?: string;
  /** Which ends are POSTed to `webhook`; default completed and error (not your own cancel). */
  webhookEvents?: ("completed" | "error" | "cancelled")[];
  /** Speak the reply once it is ready: the completed record then has `audioUrl` (or `audioError`). */
  speak?: { voice?: string; format?: AudioFormat; speed?: number };
  /**
   * The longest it may wait for a worker, ms: past it, unstarted, it ends as `error` (`queue_timeout`); refused at
   * once (429 QUEUE_TIMEOUT) when the queue's estimate says it would start later.
   */
  maxQueueMs?: number;
}

export interface SubmitResponse {
  id: string;
  tokens: -1;
}

export type RequestState = "processing" | "completed" | "error";

/** What the status endpoint answers (and each event of its stream carries). */
export interface StatusRecord {
  status: RequestState;
  reply?: string;
  tokens?: number;
  promptTokens?: number;
  cachedTokens?: number;
  error?: string;
  progress?: number;
  queuePosition?: number;
  estimatedTimeRemaining?: number;
  processingTime?: number;
  droppedMessages?: number;
  /** When `error`: its kind (`cancelled`, `timeout`, `context_length_exceeded`, `invalid_request`, ...). */
  errorCode?:
    | "cancelled"
    | "timeout"
    | "context_length_exceeded"
    | "invalid_request"
    | "generation_failed"
    | "lost"
    | "not_queued"
    | "queue_timeout";
  /** Why generation ended: `stop`, `length` (its `maxTokens` or the context's end), or `cancelled`. */
  finishReason?: "stop" | "length" | "cancelled";
  /** When completed: the token limit the reply was generated with. */
  maxTokens?: number;
  /** While generating: the reply so far. */
  partialReply?: string;
  /** When `speak` was asked for: where the owner GETs the spoken reply (a path on the service). */
  audioUrl?: string;
  /**
   * With `audioUrl`, when the reply was longer than the speech bound (4096 characters): the audio speaks only its
   * start.
   */
  audioTruncated?: true;
  /** When `speak` was asked for but the reply could not be spoken: why. */
  audioError?: string;
}

/** A record that ended well: what `generate` resolves to. */
export type CompletedRecord = StatusRecord & { id: string; status: "completed"; reply: string; tokens: number };

export type AudioFormat = "mp3" | "wav" | "opus" | "flac" | "pcm";

export interface SpeechRequest {
  text: string;
  /** A voice id of `voices()`; a character's voice has the model's id. */
  voice?: string;
  speed?: number;
  format?: AudioFormat;
}

export interface SpeechAudio {
  audio: Uint8Array;
  /** e.g. `audio/mpeg`; raw PCM says its rate: `audio/L16;rate=22050`. */
  contentType: string;
  /** Seconds of audio, when the server knows it. */
  durationSeconds: number | null;
  sampleRate: number | null;
}

export interface Voice {
  id: string;
  language: string;
  gender: "female" | "male";
  description: string;
  /** Set on a character's own voice. */
  character?: string;
}

export type RequestListItem = StatusRecord & { id: string; model: string; createdAt: string };

export interface RequestsPage {
  data: RequestListItem[];
  /** Pass as `cursor` for the next (older) page; null on the last. */
  nextCursor: string | null;
}

export interface RequestsQuery {
  status?: RequestState;
  limit?: number;
  cursor?: string;
}

export type BatchStatusItem =
  (StatusRecord & { id: string }) | { id: string; error: { code: "NOT_FOUND"; message: string } };
