import { createRequire } from "node:module";
import { DEFAULT_LIMITS } from "@chorus/contracts";
import type { OpenAPIObject } from "openapi3-ts/oas31";
import { adminPaths, ADMIN_SCHEMAS } from "./admin.paths.js";
import { healthPaths } from "./health.paths.js";
import { listPaths } from "./lists.paths.js";
import { OPENAI_SCHEMAS, openAiPaths } from "./openai.paths.js";
import { RESPONSES_SCHEMAS, responsesApiPaths } from "./responses-api.paths.js";
import { BATCHES_SCHEMAS, batchesApiPaths } from "./batches-api.paths.js";
import { FILES_SCHEMAS, filesApiPaths } from "./files-api.paths.js";
import { TEXT_COMPLETION_SCHEMAS, textCompletionPaths } from "./text-completions.paths.js";
import { errorResponses, HEADERS, PARAMETERS } from "./responses.js";
import { SCHEMAS } from "./schemas.js";
import { replyAudioPaths, speechPaths } from "./speech.paths.js";
import { statusPaths } from "./status.paths.js";
import { textPaths } from "./text.paths.js";
import { USAGE_SCHEMAS, usagePaths } from "./usage.paths.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const description = `Asynchronous text generation (a general model and four character models), status tracking and text-to-speech.

Submit a generation, then follow it on the status endpoint: poll it, ask it to wait (\`Prefer: wait=N\`), or stream it as Server-Sent Events (\`Accept: text/event-stream\`).

* *Authentication.** Every API call sends \`Authorization: Bearer <API key>\`; this document, the reference page and the
* health probes need none. The admin routes (\`/admin\`) take the deployment's admin token instead.

* *Rate limits** are per API key, in fixed one-minute windows: by default ${DEFAULT_LIMITS.text} submissions a minute
* for each text model, ${DEFAULT_LIMITS.tts} speech requests, ${DEFAULT_LIMITS.status} status requests (both status
* paths, cancels, lists and batch ids together). A deployment or a key may set others; \`X-RateLimit-*\` on every answer
* of a limited operation says what applies. A 429 carries \`Retry-After\`.

* *Errors** are always the envelope \`{"error":{"code","message","details?"},"status":"error","timestamp"}\`; clients
* branch on \`code\`. Retry 5xx and 429 with exponential backoff. A generation that fails after it was accepted is
* reported by the status endpoint (\`status: error\`), not by an HTTP error.

* *OpenAI-compatible front door.** \`/v1/models\`, \`/v1/chat/completions\` and \`/v1/audio/speech\` take OpenAI's
* shapes over the same keys, budgets and jobs (\`new OpenAI({ baseURL: "<gateway>/v1", apiKey })\`); their errors come
* in OpenAI's envelope \`{"error":{"message","type","param","code"}}\`.`;

/** The OpenAPI 3.1 document of the gateway's API, built from the contract's own schemas. */
export function buildOpenApiDocument(): OpenAPIObject {
  return {
    openapi: "3.1.0",
    info: { title: "Chorus API", version, description },
    tags: [
      { name: "Text generation", description: "Submit a conversation; the reply comes through the status endpoint." },
      { name: "Status", description: "Follow, wait for, stream, list and cancel text requests." },
      { name: "Speech", description: "Text-to-speech and its voices." },
      {
        name: "OpenAI-compatible",
        description:
          "The same service under OpenAI's paths and shapes (`/v1`), for the clients that speak them; errors in OpenAI's envelope.",
      },
      { name: "Health", description: "Probes for load balancers and orchestrators." },
      {
        name: "Admin",
        description: "For operators, with the deployment's admin token (`ADMIN_TOKEN`); absent where it is not set.",
      },
    ],
    security: [{ bearerAuth: [] }],
    paths: {
      ...textPaths(),
      ...statusPaths(),
      ...listPaths(),
      ...usagePaths(),
      ...speechPaths(),
      ...replyAudioPaths(),
      ...openAiPaths(),
      ...textCompletionPaths(),
      ...responsesApiPaths(),
      ...filesApiPaths(),
      ...batchesApiPaths(),
      ...healthPaths(),
      ...adminPaths(),
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "An API key (`npm run keys -- create --name NAME`, or `POST /admin/keys`).",
        },
        adminToken: {
          type: "http",
          scheme: "bearer",
          description: "The deployment's `ADMIN_TOKEN`, for the admin routes only.",
        },
      },
      schemas: {
        ...SCHEMAS,
        ...OPENAI_SCHEMAS,
        ...TEXT_COMPLETION_SCHEMAS,
        ...RESPONSES_SCHEMAS,
        ...FILES_SCHEMAS,
        ...BATCHES_SCHEMAS,
        ...ADMIN_SCHEMAS,
        ...USAGE_SCHEMAS,
      },
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: errorResponses(),
    },
  };
}
