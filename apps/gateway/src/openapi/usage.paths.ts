import { USAGE_DEFAULT_DAYS, USAGE_GROUPINGS, USAGE_MAX_DAYS } from "@chorus/contracts";
import type { ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import { json, limitedOk, type Operation, type Paths } from "./operation.js";
import { errors } from "./responses.js";
import { schemaRef } from "./schemas.js";

const admin = { tags: ["Admin"], security: [{ adminToken: [] }] } satisfies Partial<Operation>;
const count: SchemaObject = { type: "integer", minimum: 0 };

const figures: Record<string, SchemaObject> = {
  requests: {
    type: "object",
    description: "Finished requests by how they ended.",
    properties: { completed: count, error: count, cancelled: count },
    required: ["completed", "error", "cancelled"],
  },
  promptTokens: count,
  cachedPromptTokens: { ...count, description: "Of the prompt tokens, those the engine reused from its cache." },
  completionTokens: count,
  characters: { ...count, description: "Characters spoken: speech requests and spoken replies (`speak`)." },
  audioSeconds: { type: "number", minimum: 0, description: "Seconds of audio made, to the millisecond." },
};
const figureNames = Object.keys(figures);

export const USAGE_SCHEMAS: Record<string, SchemaObject> = {
  UsageFigures: { type: "object", properties: figures, required: figureNames },
  UsageBucket: {
    type: "object",
    description: "One UTC day (groupBy=day) or one model (groupBy=model; speech under its engine's name).",
    properties: { day: { type: "string", format: "date" }, model: { type: "string" }, ...figures },
    required: figureNames,
  },
  UsageReport: {
    type: "object",
    properties: {
      keyId: { type: "string" },
      from: { type: "string", format: "date" },
      to: { type: "string", format: "date" },
      groupBy: { type: "string", enum: [...USAGE_GROUPINGS] },
      buckets: {
        type: "array",
        items: schemaRef("UsageBucket"),
        description: "Only buckets where something was used.",
      },
      total: schemaRef("UsageFigures"),
    },
    required: ["keyId", "from", "to", "groupBy", "buckets", "total"],
  },
  AdminUsage: {
    type: "object",
    properties: {
      from: { type: "string", format: "date" },
      to: { type: "string", format: "date" },
      groupBy: { type: "string", enum: [...USAGE_GROUPINGS] },
      keys: { type: "array", items: schemaRef("UsageReport") },
    },
    required: ["from", "to", "groupBy", "keys"],
  },
};

const rangeParameters: ParameterObject[] = [
  {
    name: "from",
    in: "query",
    schema: { type: "string", format: "date" },
    description: `First UTC day, \`YYYY-MM-DD\`. Default: ${USAGE_DEFAULT_DAYS} days ending with \`to\`. After \`to\`, or a range over ${USAGE_MAX_DAYS} days: 400 naming \`from\`.`,
  },
  {
    name: "to",
    in: "query",
    schema: { type: "string", format: "date" },
    description: "Last UTC day, included. Default: today.",
  },
  {
    name: "groupBy",
    in: "query",
    schema: { type: "string", enum: [...USAGE_GROUPINGS], default: "day" },
    description: "One bucket per UTC day, or per model. Anything else: 400 naming `groupBy`.",
  },
];

const example = {
  keyId: "key_3f9a1c",
  from: "2026-11-01",
  to: "2026-11-30",
  groupBy: "day",
  buckets: [
    {
      day: "2026-11-27",
      requests: { completed: 41, error: 1, cancelled: 2 },
      promptTokens: 18230,
      cachedPromptTokens: 9120,
      completionTokens: 6104,
      characters: 2210,
      audioSeconds: 148.52,
    },
  ],
  total: {
    requests: { completed: 41, error: 1, cancelled: 2 },
    promptTokens: 18230,
    cachedPromptTokens: 9120,
    completionTokens: 6104,
    characters: 2210,
    audioSeconds: 148.52,
  },
};

const csv =
  "key,day,completed,error,cancelled,promptTokens,cachedPromptTokens,completionTokens,characters,audioSeconds\r\n" +
  "key_3f9a1c,2026-11-27,41,1,2,18230,9120,6104,2210,148.52\r\n";

const description =
  "What finished requests used (docs/usage.md): each request that ended (completed, error, cancelled) counted once, on the UTC day it ended, by model; tokens from the records, speech characters and seconds. Days are kept 400 days.";

/** GET /api/v2/usage (the key itself) and GET /admin/usage (every key, CSV too). */
export function usagePaths(): Paths {
  return {
    "/api/v2/usage": {
      get: {
        operationId: "getUsage",
        summary: "What the calling key used, by UTC day or by model",
        tags: ["Status"],
        description: `${description} With the key itself: a key sees only its own. Counts once against the status budget.`,
        parameters: rangeParameters,
        responses: {
          "200": limitedOk("The key's usage over the range.", json(schemaRef("UsageReport"), { byDay: example })),
          ...errors(400, 401, 429, 500, 503),
        },
      },
    },
    "/admin/usage": {
      get: {
        ...admin,
        operationId: "getAllUsage",
        summary: "What every key (or one) used, as JSON or CSV",
        description: `${description} Revoked keys included. \`Accept: text/csv\`: one row per key and bucket, for billing.`,
        parameters: [
          {
            name: "key",
            in: "query",
            schema: { type: "string" },
            description: "Only this key (its id); unknown: 404.",
          },
          ...rangeParameters,
        ],
        responses: {
          "200": {
            description: "Each key's usage over the range.",
            content: {
              ...json(schemaRef("AdminUsage"), {
                all: { from: "2026-11-01", to: "2026-11-30", groupBy: "day", keys: [example] },
              }),
              "text/csv": { schema: { type: "string" }, example: csv },
            },
          },
          ...errors(400, 401, 404, 429, 500, 503),
        },
      },
    },
  };
}
