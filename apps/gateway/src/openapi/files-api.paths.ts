import { FILE_LIMITS } from "@chorus/contracts";
import { json, limitedOk, type Paths } from "./operation.js";
import { openAiErrors } from "./openai.paths.js";
import { schemaRef, type Schema } from "./schemas.js";

const string = { type: "string" } as const;
const seconds = { type: "integer", minimum: 0, description: "Unix seconds." } as const;

const fileObject: Schema = {
  type: "object",
  required: ["id", "object", "bytes", "created_at", "expires_at", "filename", "purpose", "status"],
  properties: {
    id: { ...string, example: "file-3f0c9a1b2c3d4e5f60718293" },
    object: { type: "string", enum: ["file"] },
    bytes: { type: "integer", minimum: 0 },
    created_at: seconds,
    expires_at: seconds,
    filename: string,
    purpose: { type: "string", enum: ["batch", "batch_output"] },
    status: { type: "string", enum: ["processed"], description: "Deprecated by OpenAI; always `processed`." },
  },
};

export const FILES_SCHEMAS: Record<string, Schema> = {
  OpenAiFile: fileObject,
  OpenAiFileList: {
    type: "object",
    required: ["object", "data", "first_id", "last_id", "has_more"],
    properties: {
      object: { type: "string", enum: ["list"] },
      data: { type: "array", items: schemaRef("OpenAiFile") },
      first_id: { type: ["string", "null"] },
      last_id: { type: ["string", "null"] },
      has_more: { type: "boolean" },
    },
  },
  OpenAiFileDeleted: {
    type: "object",
    required: ["id", "object", "deleted"],
    properties: { id: string, object: { type: "string", enum: ["file"] }, deleted: { type: "boolean", enum: [true] } },
  },
};

const fileId = { name: "id", in: "path", required: true, schema: string } as const;
const { min, max } = FILE_LIMITS.expiresAfterSeconds;

/** OpenAI's Files API, for a batch's input (docs/batches.md). */
export function filesApiPaths(): Paths {
  const tags = ["OpenAI-compatible"];
  const budget = "Each call spends the key's status budget.";
  return {
    "/v1/files": {
      post: {
        operationId: "openAiCreateFile",
        summary: "Upload a file (OpenAI's Files API; batch input only)",
        tags,
        description: `A batch's input, as \`multipart/form-data\`: the part \`file\` (UTF-8 JSON Lines, at most ${FILE_LIMITS.maxBytes} bytes and ${FILE_LIMITS.maxLines} lines), \`purpose\` (only \`batch\`), and optionally \`expires_after[anchor]\` (\`created_at\`) and \`expires_after[seconds]\` (${min} to ${max}; by default ${max}: 30 days). The file is the uploading key's own; a key holds at most ${FILE_LIMITS.maxFilesPerKey} files (409 beyond, until one is deleted or expires). ${budget}`,
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["file", "purpose"],
                properties: {
                  file: { type: "string", format: "binary" },
                  purpose: { type: "string", enum: ["batch"] },
                  "expires_after[anchor]": { type: "string", enum: ["created_at"] },
                  "expires_after[seconds]": { type: "integer", minimum: min, maximum: max },
                },
              },
            },
          },
        },
        responses: {
          "200": limitedOk("The file.", json(schemaRef("OpenAiFile"))),
          ...openAiErrors(400, 401, 409, 413, 429, 503),
        },
      },
      get: {
        operationId: "openAiListFiles",
        summary: "List the key's files",
        tags,
        description: `The key's live files by creation time (\`order\`, newest first by default), a page of \`limit\` (1 to ${FILE_LIMITS.list.max}, default ${FILE_LIMITS.list.default}) after the file \`after\`. ${budget}`,
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: FILE_LIMITS.list.max } },
          { name: "order", in: "query", schema: { type: "string", enum: ["asc", "desc"] } },
          { name: "after", in: "query", schema: string },
          { name: "purpose", in: "query", schema: string },
        ],
        responses: {
          "200": limitedOk("A page of files.", json(schemaRef("OpenAiFileList"))),
          ...openAiErrors(400, 401, 429, 503),
        },
      },
    },
    "/v1/files/{id}": {
      get: {
        operationId: "openAiRetrieveFile",
        summary: "Retrieve a file's metadata",
        tags,
        description: `The key's own file (another key's, an expired or deleted one: 404). ${budget}`,
        parameters: [fileId],
        responses: {
          "200": limitedOk("The file.", json(schemaRef("OpenAiFile"))),
          ...openAiErrors(401, 404, 429, 503),
        },
      },
      delete: {
        operationId: "openAiDeleteFile",
        summary: "Delete a file",
        tags,
        description: `Deletes the key's own file at once. ${budget}`,
        parameters: [fileId],
        responses: {
          "200": limitedOk("Deleted.", json(schemaRef("OpenAiFileDeleted"))),
          ...openAiErrors(401, 404, 429, 503),
        },
      },
    },
    "/v1/files/{id}/content": {
      get: {
        operationId: "openAiFileContent",
        summary: "Read a file's bytes",
        tags,
        description: `The file as uploaded, byte for byte (\`application/octet-stream\`). ${budget}`,
        parameters: [fileId],
        responses: {
          "200": limitedOk("The file's bytes.", {
            "application/octet-stream": { schema: { type: "string", format: "binary" } },
          }),
          ...openAiErrors(401, 404, 429, 503),
        },
      },
    },
  };
}
