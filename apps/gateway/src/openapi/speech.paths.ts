import { AUDIO_FORMAT_INFO, AUDIO_FORMATS } from "@chorus/contracts";
import type { MediaTypeObject } from "openapi3-ts/oas31";
import { json, limitedOk, type Operation, type Paths } from "./operation.js";
import { budgetHeaders, errors, parameterRef } from "./responses.js";
import { schemaRef, VOICE_LIST_EXAMPLE } from "./schemas.js";
import { idParameter } from "./status.paths.js";

/** Each format's audio, as its Content-Type names it (pcm adds `;rate=<Hz>`). */
export const AUDIO_CONTENT = Object.fromEntries(
  AUDIO_FORMATS.map((format) => [
    AUDIO_FORMAT_INFO[format].contentType,
    {
      schema: {
        type: "string",
        contentMediaType: AUDIO_FORMAT_INFO[format].contentType,
        description: `\`format: ${format}\`: ${AUDIO_FORMAT_INFO[format].description}.`,
      },
    },
  ]),
) as Record<string, MediaTypeObject>;

const number = (description: string) => ({ description, schema: { type: "number" } }) as const;

/** The audio bytes with the headers describing them; speech streams unless asked not to, a spoken reply is whole. */
function audioOk(streamed: boolean) {
  if (!streamed) {
    return limitedOk("The audio bytes.", AUDIO_CONTENT, {
      "Content-Length": { description: "Bytes of audio.", schema: { type: "integer" } },
      "X-Audio-Duration": number("Seconds of audio (3 decimals), when known."),
      "X-Sample-Rate": number("Samples per second, when known."),
      ...budgetHeaders(),
    });
  }
  return limitedOk(
    "The audio bytes: streamed as they are made (chunked), or whole with `Prefer: stream=false`, on replays and for HTTP/1.0.",
    AUDIO_CONTENT,
    {
      "Content-Length": { description: "Bytes of audio: whole answers only.", schema: { type: "integer" } },
      "X-Audio-Duration": number(
        "Seconds of audio (3 decimals), when known: a header on whole answers, a trailer on streamed ones.",
      ),
      "X-Sample-Rate": number("Samples per second, when known."),
      Trailer: { description: "`X-Audio-Duration` on streamed answers.", schema: { type: "string" } },
      ...budgetHeaders(),
      "Preference-Applied": {
        description: "`stream=false` when the whole file was asked for.",
        schema: { type: "string" },
      },
    },
  );
}

function speak(operationId: string, summary: string): Operation {
  return {
    operationId,
    summary,
    tags: ["Speech"],
    description:
      "Synchronous for the client: answers with the audio as a worker makes it, the first bytes after the first sentence (chunked), or whole with `Prefer: stream=false` (503 if not made within the deployment's time limit). With an `Idempotency-Key`, a retry gets the same audio whole without a second synthesis.",
    parameters: [parameterRef("IdempotencyKey"), parameterRef("PreferWholeAudio")],
    requestBody: {
      required: true,
      content: json(schemaRef("SpeechRequest"), {
        example: { text: "Hello there, traveller.", voice: "Witch", speed: 1.1, format: "mp3" },
      }),
    },
    responses: {
      "200": audioOk(true),
      ...errors(400, 401, 403, 409, 413, 415, 429, 500, 503),
    },
  };
}

function replyAudio(operationId: string): Operation {
  return {
    operationId,
    summary: "Fetch the spoken reply of a request",
    tags: ["Speech"],
    description:
      "The audio of a completed request that asked for `speak` (the record's `audioUrl`), in the format asked for; as often as needed for SPOKEN_REPLY_TTL_SECONDS after it was spoken (1 h by default; never longer than the record), then 404 `the spoken reply of request ... has expired` while the record stays. Owner only (404 as for the record, and for a request without audio); needs the tts scope; counts against the speech budget.",
    responses: {
      "200": audioOk(false),
      ...errors(401, 403, 404, 429, 500, 503),
    },
  };
}

/** The spoken reply beside each status path. */
export function replyAudioPaths(): Paths {
  return {
    "/api/v2/status/{id}/audio": {
      parameters: [idParameter("id", "The `id` of a submit response.")],
      get: replyAudio("getReplyAudio"),
    },
    "/api/status/{task_id}/audio": {
      parameters: [idParameter("task_id", "The `id` of a submit response (the contract's twin path).")],
      get: replyAudio("getReplyAudioByTaskId"),
    },
  };
}

export function speechPaths(): Paths {
  return {
    "/api/audio/full": { post: speak("synthesizeSpeech", "Convert text to speech") },
    "/api/tts": { post: speak("synthesizeSpeechTts", "Convert text to speech (the contract's twin path)") },
    "/api/voices": {
      get: {
        operationId: "listVoices",
        summary: "List the voices",
        tags: ["Speech"],
        description:
          "The catalogue: each character's own voice (its id is the model id), then generic voices. Not rate limited.",
        responses: {
          "200": {
            description: "The voices.",
            content: json(schemaRef("VoiceList"), { catalogue: VOICE_LIST_EXAMPLE }),
          },
          ...errors(401, 429, 503),
        },
      },
    },
  };
}
