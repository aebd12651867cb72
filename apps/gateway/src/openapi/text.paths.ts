import { MODEL_IDS } from "@chorus/contracts";
import { json, limitedOk, type Operation, type Paths } from "./operation.js";
import { errors, headerRefs, parameterRef } from "./responses.js";
import { schemaRef } from "./schemas.js";

const defaultExample = {
  messages: [{ role: "You", content: "Write a haiku about the sea.", index: 0 }],
  samplingParams: { max_tokens: 64, temperature: 0.7 },
};

const characterExample = {
  botName: "Witch",
  persona: "A sharp-tongued village witch who brews remedies and speaks in riddles.",
  messages: [
    {
      role: "You",
      content: "Can you cure my cough?",
      index: 0,
      id: "m-1",
      messageIndex: 0,
      chatId: "chat-7",
      userId: "user-42",
      createdAt: "2026-01-01T12:00:00Z",
      image: null,
    },
  ],
};

const submitted = { id: "0f8e2c1a-3b7d-4e5f-9a6b-1c2d3e4f5a6b", tokens: -1 };
const finished = {
  id: submitted.id,
  status: "completed",
  reply: "Grey waves fold and break…",
  tokens: 17,
  promptTokens: 42,
  cachedTokens: 0,
  processingTime: 1.84,
};

/** The POST a `webhook` receives once the request is final (OpenAPI's callback of the submit). */
const webhookCallback = {
  finalRecord: {
    "{$request.body#/webhook}": {
      post: {
        summary: "The final record, signed with the API key's own secret (Standard Webhooks)",
        description:
          "Sent once the request is `completed` or `error` (a failure, the time limit, a lost job), and on your own cancel only when `webhookEvents` names `cancelled`; retried with exponential backoff until a 2xx (410 Gone stops it), every attempt with the same `webhook-id`, each behind the deliveries your key already has queued (keys take turns). An attempt whose whole answer (connection, headers and body) has not arrived within WEBHOOK_TIMEOUT_MS (10 s by default) is cut off and retried; an address that keeps failing is paused for your key for a while (its attempts then fail at once) and tried again once. The body names your key (`keyId`). Verify `webhook-signature` with the `standardwebhooks` package and the webhook secret your key was given at creation (`whsec_…`; keys older than per-key secrets: the deployment's WEBHOOK_SECRET). See docs/api.md, Webhooks.",
        parameters: [
          {
            name: "webhook-id",
            in: "header",
            required: true,
            description: "`msg_<request id>`: the same on every attempt (deduplicate on it).",
            schema: { type: "string" },
          },
          {
            name: "webhook-timestamp",
            in: "header",
            required: true,
            description: "Unix seconds of this attempt.",
            schema: { type: "string" },
          },
          {
            name: "webhook-signature",
            in: "header",
            required: true,
            description:
              "`v1,<base64 HMAC-SHA256 of id.timestamp.body>`; during a rotation's overlap two of them, space-separated (one per secret): a Standard Webhooks library accepts the body when any verifies.",
            schema: { type: "string" },
          },
        ],
        requestBody: {
          required: true,
          content: json(schemaRef("WebhookDelivery"), { finished: { ...finished, keyId: "key_3f9a0c1b2d4e5f60" } }),
        },
        responses: {
          "2XX": { description: "Delivered: no more attempts." },
          "410": { description: "Gone: no more attempts." },
        },
      },
    },
  },
};

function submit(operationId: string, summary: string, body: string, example: object): Operation {
  return {
    operationId,
    summary,
    tags: ["Text generation"],
    description:
      "Queues the request and answers at once with its id; poll (or stream) `GET /api/v2/status/{id}` for the reply. With `Prefer: wait=N` the answer is the finished record (with its `id`) if it finishes within N seconds. API keys take turns in the queue (one request of each waiting key before a key's next). A key holding its cap of requests in flight (`MAX_IN_FLIGHT_PER_KEY`, 100 by default, or its own `inflight` limit), or with `Prefer: wait` of open streams and waits, gets 429 and nothing is queued; so does a submit with `webhook` from a key holding its cap of webhook deliveries not yet ended (`MAX_PENDING_WEBHOOKS_PER_KEY`, 1000, or its own `webhooks` limit). A `webhook` whose host is not among the key's webhook hosts (where its operator set some) is 400 naming `webhook`.",
    parameters: [parameterRef("IdempotencyKey"), parameterRef("PreferSubmit")],
    requestBody: { required: true, content: json(schemaRef(body), { example }) },
    callbacks: webhookCallback,
    responses: {
      "200": limitedOk(
        "Accepted (`{id, tokens: -1}`), or with `Prefer: wait` the finished record.",
        json(
          { anyOf: [schemaRef("SubmitResponse"), schemaRef("FinishedSubmitResponse")] },
          { accepted: submitted, finished },
        ),
        headerRefs("Preference-Applied"),
      ),
      ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503),
    },
  };
}

/**
 * `default` and the character models take different bodies: one path each (the concrete path wins, as OpenAPI matches).
 */
export function textPaths(): Paths {
  return {
    "/api/text/default": {
      post: submit(
        "submitDefault",
        "Submit a generation to the general model",
        "DefaultModelGenerationRequest",
        defaultExample,
      ),
    },
    "/api/text/{model}": {
      parameters: [
        {
          name: "model",
          in: "path",
          required: true,
          description: "A character model.",
          schema: { type: "string", enum: MODEL_IDS.filter((id) => id !== "default") },
        },
      ],
      post: submit(
        "submitCharacter",
        "Submit a generation to a character model",
        "CharacterModelGenerationRequest",
        characterExample,
      ),
    },
  };
}
