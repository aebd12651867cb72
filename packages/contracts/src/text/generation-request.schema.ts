import { DEFAULT_BOT_NAME, REQUEST_LIMITS as L, SAMPLING_BOUNDS as S } from "../limits.js";
import { speechRequestSchema } from "../speech/speech-request.schema.js";
import { SPEECH_LIMITS } from "../speech/speech-request.js";
import { WEBHOOK_EVENTS } from "../webhooks/webhook-events.js";
import { responseFormatSchema } from "./response-format.js";
import { SAMPLING_KNOB_SCHEMAS } from "./sampling-knobs.js";

/** Non-empty and not only white space. */
const TEXT = { type: "string", minLength: 1, pattern: "\\S" } as const;
const IDENTIFIER = { ...TEXT, maxLength: L.maxIdChars } as const;
const POSITION = { type: "integer", minimum: 0 } as const;

const messageProperties = {
  role: { type: "string", enum: ["You", "Bot"] },
  content: { ...TEXT, maxLength: L.maxMessageChars },
  index: POSITION,
  messageIndex: POSITION,
  id: IDENTIFIER,
  chatId: IDENTIFIER,
  userId: IDENTIFIER,
  createdAt: { type: "string", format: "date-time" },
  upvote: { type: "number" },
  image: { type: ["string", "null"], maxLength: L.maxImageUrlChars },
} as const;

/**
 * Each sampling parameter's bounds as JSON Schema, without defaults: the request schema adds the
 * contract's defaults, the worker's models configuration (per-model defaults) uses them as they are.
 */
export const SAMPLING_PARAM_SCHEMAS = {
  max_tokens: { type: "integer", minimum: S.maxTokens.min, maximum: S.maxTokens.max },
  temperature: { type: "number", minimum: S.temperature.min, maximum: S.temperature.max },
  top_p: { type: "number", exclusiveMinimum: S.topP.exclusiveMin, maximum: S.topP.max },
  seed: { type: "integer", minimum: S.seed.min, maximum: S.seed.max },
} as const;

const P = SAMPLING_PARAM_SCHEMAS;

const samplingParams = {
  type: "object",
  additionalProperties: false,
  default: {},
  properties: {
    max_tokens: { ...P.max_tokens, default: S.maxTokens.default },
    temperature: { ...P.temperature, default: S.temperature.default },
    top_p: { ...P.top_p, default: S.topP.default },
    seed: P.seed,
    ...SAMPLING_KNOB_SCHEMAS,
  },
} as const;

/** Extension: where the final record is POSTed, signed (checked further by checkWebhookUrl). */
const webhook = {
  type: "string",
  format: "uri",
  maxLength: L.maxWebhookUrlChars,
  description:
    "http or https URL that receives the final record, signed per Standard Webhooks. Its host must be a public address (not loopback, private, link-local, site-local or metadata, nor an IPv6 form carrying such an IPv4) unless the deployment allows private ones. See docs/api.md, Webhooks.",
} as const;

/** Extension: which ends of the request are delivered to `webhook`. */
const webhookEvents = {
  type: "array",
  items: { type: "string", enum: [...WEBHOOK_EVENTS] },
  minItems: 1,
  uniqueItems: true,
  description:
    'Which ends of the request are POSTed to `webhook` (only with `webhook`): `completed`, `error` (a failure, a lost job, the time limit) and `cancelled` (your own cancel). Default `["completed","error"]`: a cancel is not delivered unless asked for.',
} as const;

/** Extension: the longest the request may wait for a worker (see GenerationRequest.maxQueueMs). */
const maxQueueMs = {
  type: "integer",
  minimum: L.queueDeadlineMs.min,
  maximum: L.queueDeadlineMs.max,
  description:
    "The longest this request may wait in the queue, ms. If no worker has started it by then, it ends as `error` with `errorCode: queue_timeout` (it never runs); when the queue's estimate already says it would start later, the submit is refused at once: 429 QUEUE_TIMEOUT with Retry-After. `Prefer: wait-queue=<seconds>` says the same in a header; the body field wins. See docs/api.md, Queue deadline.",
} as const;

const { voice, format, speed } = speechRequestSchema.properties;
/**
 * Extension: also synthesize the reply. The speech endpoint's bounds and enums; `voice`
 * has no default here, because the worker then takes the character's own voice.
 */
const speak = {
  type: "object",
  additionalProperties: false,
  properties: { voice: { type: voice.type, enum: voice.enum }, format, speed },
  description: `Synthesize the reply when it is ready; the completed record then carries \`audioUrl\`. Needs the tts scope. Spends one unit of the key's speech budget as well as the text one (429 RATE_LIMITED, nothing queued, when the speech budget is spent). At most ${SPEECH_LIMITS.textMaxChars} characters are spoken, as the speech endpoint bounds its text: of a longer reply, its start up to the last sentence end (else white space) within them, and the record has \`audioTruncated: true\`. The audio is kept SPOKEN_REPLY_TTL_SECONDS (1 h by default).`,
} as const;

function requestSchema(message: object, botName: object, required: string[]) {
  return {
    type: "object",
    additionalProperties: false,
    required,
    properties: {
      messages: { type: "array", minItems: 1, maxItems: L.maxMessages, items: message },
      persona: { type: "string", maxLength: L.maxPersonaChars },
      botName,
      samplingParams,
      responseFormat: responseFormatSchema,
      webhook,
      webhookEvents,
      speak,
      maxQueueMs,
    },
  } as const;
}

/**
 * `default`: only `role` and `content` are required per message; its position comes from `index`
 * or, as the spec allows, `messageIndex` (checked after the schema, see positions.ts).
 */
export const defaultModelRequestSchema = requestSchema(
  { type: "object", additionalProperties: false, required: ["role", "content"], properties: messageProperties },
  { ...TEXT, maxLength: L.maxBotNameChars, default: DEFAULT_BOT_NAME },
  ["messages"],
);

/** Character models: `botName` and the full message field set are required. */
export const characterModelRequestSchema = requestSchema(
  {
    type: "object",
    additionalProperties: false,
    required: ["role", "content", "index", "id", "messageIndex", "chatId", "userId", "createdAt"],
    properties: { ...messageProperties, upvote: { type: "number", default: 0 } },
  },
  { ...TEXT, maxLength: L.maxBotNameChars },
  ["messages", "botName"],
);
