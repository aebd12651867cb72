import type { ModelId } from "./models.js";
import type { AudioFormat } from "./speech/audio-formats.js";
import type { SpeechRequest } from "./speech/speech-request.js";
import type { GenerationRequest, SamplingParams, SpeakOptions } from "./text/generation-request.js";
import type { ToolCall } from "./text/tools.js";

/**
 * The job contract shared by the gateway (producer) and the worker (consumer).
 * Never rename a queue or job name: jobs with the old name may be waiting in Redis.
 */
export const QUEUES = {
  text: "text-generation",
  speech: "speech-synthesis",
  /** POSTs of final records to the submit's `webhook`. */
  webhooks: "webhook-delivery",
} as const;

/**
 * One worker's hand-over queue, where other workers put the text jobs whose conversation
 * this worker holds in its prompt cache (cache-aware routing). The job keeps its id and data.
 */
export function handoverQueueName(workerId: string): string {
  return `${QUEUES.text}@${workerId}`;
}

export const JOB_NAMES = {
  generateText: "generate-text",
  synthesizeSpeech: "synthesize-speech",
  deliverWebhook: "deliver-webhook",
  /** On the speech queue: a text job's reply, generated, waiting to be spoken and recorded (`speak`). */
  speakReply: "speak-reply",
} as const;

/**
 * What admission held of a key's usage budgets for one job, and in which buckets (the UTC day and
 * month it was admitted in): the finished job releases exactly this there and adds what it used.
 */
export interface BudgetHold {
  /** `YYYY-MM-DD` and `YYYY-MM`, UTC, at admission. */
  day: string;
  month: string;
  /** Tokens held (prompt estimate + the reply's most); 0 where no token budget applied. */
  tokens: number;
  /** Milliseconds of audio held (the estimate from characters); 0 where no audio budget applied. */
  audioMs: number;
}

export interface GenerateTextJob {
  /** The public request id; also the BullMQ job id. */
  requestId: string;
  /** Id (not the secret) of the API key that submitted it: the owner of the status record. */
  keyId: string;
  model: ModelId;
  /** Validated, with messages sorted by position and spec defaults filled in. */
  request: GenerationRequest;
  /** Epoch milliseconds when the gateway accepted it. */
  acceptedAt: number;
  /**
   * The sampling fields the client actually sent. The worker lets a model's configured defaults
   * replace the spec's defaults only where the client sent nothing (absent in older jobs).
   */
  clientSampling?: Partial<SamplingParams>;
  /**
   * A client streams this reply (POST /v1/chat/completions with `stream`): the worker
   * publishes its growth as ReplyDelta messages on the reply-delta channel as the engine tells it.
   */
  streamReply?: boolean;
  /**
   * The seed drawn at submit for a request that sent none: every attempt of the job samples with
   * it, so a retry writes the reply the first attempt was writing where the engine allows.
   */
  seed?: number;
  /** What admission held of the key's usage budgets (absent: none applied). */
  budget?: BudgetHold;
  /**
   * What admission charged the request's key in fair turns (its estimated cost): the worker corrects
   * the key's turns by the measured cost once the reply is recorded. Absent in older jobs: no correction.
   */
  turnCost?: number;
  /**
   * What one turn of this request's work counts for its key (the key's priority tier: fair-turns.ts
   * TIER_TURN_WEIGHT); turnCost already includes it, and the measured cost is weighed by it too.
   * Absent: 1.
   */
  turnWeight?: number;
  /**
   * A line of a batch (the Batch API): nobody reads its progress while it runs and no next turn follows
   * it, so the worker writes progress only once it has run a while and routes it nowhere (runs it where
   * taken). Absent: an interactive request.
   */
  batchLine?: boolean;
}

/**
 * What a streamed reply grew by: `text` starts at character `at` of the reply so far (cleaned as
 * the final reply is). Published on the reply-delta channel, at most every REPLY_DELTA_INTERVAL_MS
 * per job; pub/sub may drop one, so a consumer takes only a delta that starts where it stands.
 */
export interface ReplyDelta {
  id: string;
  /**
   * The attempt whose text this is (each run of the job has its own): a stream follows one attempt,
   * and another attempt's text only while it continues what the client has. Absent from the deltas
   * of an earlier release's workers.
   */
  attempt?: string;
  at: number;
  text: string;
}

/** The longest a streamed reply's growth waits in the worker before it is published. */
export const REPLY_DELTA_INTERVAL_MS = 50;

export interface SynthesizeSpeechJob {
  /** Also the BullMQ job id and the key of the audio in Redis. */
  requestId: string;
  keyId: string;
  /** Validated, defaults filled. */
  request: SpeechRequest;
  acceptedAt: number;
  /**
   * Publish the audio as it is made (a piece per sentence group) on the request's audio stream, for
   * a gateway that sends it on at once; absent or false: store it whole (older gateways, and
   * clients that want Content-Length).
   */
  stream?: boolean;
  /** What admission held of the key's usage budgets (absent: none applied). */
  budget?: BudgetHold;
}

/**
 * A reply asked to be spoken (`speak`), handed by its text job to the speech queue once generated, so
 * that speaking waits for a speech slot and holds no text slot. This job records the reply (with its
 * audio or `audioError`), counts its usage and settles its key's turn: the record stays `processing`
 * until then. Its id is speakReplyJobId(requestId), so a text job that runs twice hands it over once.
 */
/** What a text job generated: the completed record's own fields. */
export interface GeneratedReply {
  reply: string;
  tokens: number;
  promptTokens: number;
  cachedTokens: number;
  processingTime: number;
  droppedMessages: number;
  /** Why generation ended, and the token limit it ran with: what the worker used, for every door to read. */
  finishReason: "stop" | "length";
  maxTokens: number;
  /** The calls the model made instead of replying (`tools`): recorded so, with `reply` empty. */
  toolCalls?: ToolCall[];
}

export interface SpeakReplyJob {
  requestId: string;
  keyId: string;
  model: ModelId;
  speak: SpeakOptions;
  /** The completed record's fields, as the text job would have written them. */
  reply: GeneratedReply;
  /** The text job's turnCost and turnWeight (GenerateTextJob). */
  turnCost?: number;
  turnWeight?: number;
  /** The text job's acceptedAt and budget hold: this job settles the key's usage budgets when it records. */
  acceptedAt: number;
  budget?: BudgetHold;
}

/** The job id of a request's spoken reply on the speech queue (BullMQ ids may not hold `:`). */
export function speakReplyJobId(requestId: string): string {
  return `${requestId}-spoken`;
}

/**
 * One request's webhook. The job id is the request id, so a record is delivered once however many
 * writers try to finish it; the record itself is read at delivery (it is final by then).
 */
export interface DeliverWebhookJob {
  requestId: string;
  url: string;
  /** The API key that sent the request: whose secret signs the delivery, whose turn and bound it counts in. */
  keyId: string;
}

/** What a speech job returns; the audio bytes themselves wait in Redis (deleted once delivered). */
export interface SpeechJobResult {
  format: AudioFormat;
  contentType: string;
  byteLength: number;
  sampleRate: number | null;
  durationSeconds: number | null;
}

/** Prefix of a speech job's failure reason when the request, not the system, is at fault. */
export const SPEECH_REQUEST_REJECTED = "REQUEST_REJECTED";
