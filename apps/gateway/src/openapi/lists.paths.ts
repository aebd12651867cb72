import { JOB_STATES } from "@chorus/contracts";
import { json, limitedOk, type Paths } from "./operation.js";
import { errors } from "./responses.js";
import { schemaRef } from "./schemas.js";
import { RECORD_EXAMPLES } from "./status.paths.js";

const MAX_PAGE = 100;

const page = {
  data: [
    {
      id: "7c41d0e2-9f3a-4b8e-a1c5-6d2f0e9b8a73",
      model: "Witch",
      createdAt: "2026-01-01T12:00:05.000Z",
      ...RECORD_EXAMPLES.generating,
    },
    {
      id: "0f8e2c1a-3b7d-4e5f-9a6b-1c2d3e4f5a6b",
      model: "default",
      createdAt: "2026-01-01T12:00:00.000Z",
      ...RECORD_EXAMPLES.completed,
    },
  ],
  nextCursor: "eyJiZWZvcmUiOjE3Njcy…",
};

const batch = {
  data: [
    { id: "0f8e2c1a-3b7d-4e5f-9a6b-1c2d3e4f5a6b", ...RECORD_EXAMPLES.completed },
    {
      id: "no-such-id",
      error: { code: "NOT_FOUND", message: "no request with id 'no-such-id' for this API key (it may have expired)" },
    },
  ],
};

/** The calling key's requests (a dashboard, or a client that lost its ids) and many statuses in one call. */
export function listPaths(): Paths {
  return {
    "/api/v2/requests": {
      get: {
        operationId: "listRequests",
        summary: "List the calling key's text requests, newest first",
        tags: ["Status"],
        description:
          "Only records still retained (24 h after their last change by default). Counts once against the status budget. A bad parameter is 400 INVALID_PARAMETER naming it.",
        parameters: [
          {
            name: "status",
            in: "query",
            schema: { type: "string", enum: [...JOB_STATES] },
            description: "Only requests in this state.",
          },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 20 } },
          {
            name: "cursor",
            in: "query",
            schema: { type: "string" },
            description: "Opaque: the `nextCursor` of the previous page.",
          },
        ],
        responses: {
          "200": limitedOk("A page of requests.", json(schemaRef("RequestList"), { page })),
          ...errors(400, 401, 429, 500, 503),
        },
      },
    },
    "/api/v2/status": {
      get: {
        operationId: "getStatuses",
        summary: "Read many requests' status at once",
        tags: ["Status"],
        description: `Counts as one status poll per id: if the budget left is smaller than the number of ids, the whole batch is 429. An unknown, expired or another key's id gets an \`error\` item, not a 404.`,
        parameters: [
          {
            name: "ids",
            in: "query",
            required: true,
            description: `1 to ${MAX_PAGE} distinct request ids, comma-separated (\`ids=a,b,c\`; duplicates are answered once). More, none or a malformed id: 400 INVALID_PARAMETER naming \`ids\`.`,
            style: "form",
            explode: false,
            schema: { type: "array", items: { type: "string" }, minItems: 1 },
            example: ["0f8e2c1a-3b7d-4e5f-9a6b-1c2d3e4f5a6b", "no-such-id"],
          },
        ],
        responses: {
          "200": limitedOk("One item per id, in the order asked.", json(schemaRef("BatchStatus"), { batch })),
          ...errors(400, 401, 429, 500, 503),
        },
      },
    },
  };
}
