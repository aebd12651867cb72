import { randomBytes } from "node:crypto";
import {
  ApiError,
  FILE_LIMITS,
  FILE_PURPOSES,
  type OpenAiFile,
  type OpenAiFileDeleted,
  openAiList,
  type OpenAiFileList,
} from "@chorus/contracts";
import type { FileStore, StoredFile } from "@chorus/platform/files";
import type { Express, Request, RequestHandler, Response } from "express";
import multer, { MulterError } from "multer";
import { authenticatedKey } from "../middleware/authenticate.js";
import { sendJson } from "../routes/send-json.js";

const seconds = (ms: number) => Math.floor(ms / 1000);

function fileObject(file: StoredFile): OpenAiFile {
  const { id, bytes, filename, purpose } = file;
  const times = { created_at: seconds(file.createdAt), expires_at: seconds(file.expiresAt) };
  return { id, object: "file", bytes, ...times, filename, purpose, status: "processed" };
}

/** One file part named `file`, bounded; a few small text fields (`purpose`, `expires_after[…]`). */
const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: FILE_LIMITS.maxBytes, files: 1, fields: 8, fieldSize: 1024, parts: 10 },
}).single("file");

/** Runs multer, its refusals turned into the error envelope (413 for a file over the bound, else 400). */
function readUpload(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) =>
    upload(req, res, (error: unknown) => {
      if (!error) return resolve();
      if (error instanceof MulterError && error.code === "LIMIT_FILE_SIZE")
        return reject(
          new ApiError("PAYLOAD_TOO_LARGE", `a file holds at most ${FILE_LIMITS.maxBytes} bytes`, {
            parameter: "file",
          }),
        );
      const message = error instanceof Error ? error.message : "a malformed multipart body";
      reject(
        ApiError.invalidParameter(
          error instanceof MulterError ? (error.field ?? "body") : "body",
          "multipart/form-data",
          `the upload could not be read: ${message}`,
        ),
      );
    }),
  );
}

function field(req: Request, name: string): string | undefined {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * `expires_after[anchor]` and `expires_after[seconds]` as the SDKs send them (multer reads the
 * brackets into an object), in ms from now; the longest by default.
 */
function expiresAfterMs(req: Request): number {
  const expiresAfter = (req.body as { expires_after?: unknown } | undefined)?.expires_after;
  const { anchor, seconds: given } = (typeof expiresAfter === "object" && expiresAfter ? expiresAfter : {}) as {
    anchor?: unknown;
    seconds?: unknown;
  };
  const { min, max } = FILE_LIMITS.expiresAfterSeconds;
  if (anchor !== undefined && anchor !== "created_at")
    throw ApiError.invalidParameter("expires_after.anchor", "string", "expires_after.anchor must be `created_at`");
  if (given === undefined) return max * 1000;
  const value = Number(given);
  if (!Number.isInteger(value) || value < min || value > max)
    throw ApiError.invalidParameter(
      "expires_after.seconds",
      "integer",
      `expires_after.seconds must be an integer from ${min} to ${max}`,
    );
  return value * 1000;
}

/** The upload's text: UTF-8 (a batch file is JSON Lines), within the bound on lines. */
function fileText(file: Express.Multer.File | undefined): string {
  if (!file) throw ApiError.invalidParameter("file", "file", "send the file as the multipart/form-data part `file`");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(file.buffer);
  } catch {
    throw ApiError.invalidParameter("file", "file", "the file is not UTF-8 text (a batch file is JSON Lines)");
  }
  const lines = text.split("\n").filter((line) => line.trim() !== "").length;
  if (lines > FILE_LIMITS.maxLines)
    throw ApiError.invalidParameter(
      "file",
      "file",
      `a batch file holds at most ${FILE_LIMITS.maxLines} lines; this one has ${lines}`,
    );
  return text;
}

function notFound(id: string): ApiError {
  return new ApiError("NOT_FOUND", `no file with id '${id}' for this API key (it may have expired or been deleted)`, {
    parameter: "file_id",
  });
}

function listQuery(req: Request) {
  const { limit, order, after, purpose } = req.query;
  const { min, max, default: byDefault } = FILE_LIMITS.list;
  const count = limit === undefined ? byDefault : Number(limit);
  if (!Number.isInteger(count) || count < min || count > max)
    throw ApiError.invalidParameter("limit", "integer", `limit must be an integer from ${min} to ${max}`);
  if (order !== undefined && order !== "asc" && order !== "desc")
    throw ApiError.invalidParameter("order", "string", "order must be `asc` or `desc`");
  return {
    limit: count,
    order: order === "asc" ? ("asc" as const) : ("desc" as const),
    ...(typeof after === "string" ? { after } : {}),
    ...(typeof purpose === "string" ? { purpose } : {}),
  };
}

async function createFile(files: FileStore, req: Request, res: Response): Promise<void> {
  await readUpload(req, res);
  const purpose = field(req, "purpose");
  if (!FILE_PURPOSES.includes(purpose as (typeof FILE_PURPOSES)[number]))
    throw ApiError.invalidParameter("purpose", "string", "purpose must be `batch`: files here are a batch's input");
  const ttl = expiresAfterMs(req);
  const upload = req.file;
  const content = fileText(upload);
  const now = Date.now();
  const stored: StoredFile = {
    id: `file-${randomBytes(12).toString("hex")}`,
    filename: upload!.originalname || "upload.jsonl",
    purpose: "batch",
    bytes: upload!.size,
    createdAt: now,
    expiresAt: now + ttl,
  };
  const key = authenticatedKey(req);
  if (!(await files.put(key.id, stored, content)))
    throw new ApiError(
      "CONFLICT",
      `this API key holds its cap of ${FILE_LIMITS.maxFilesPerKey} files: delete one first`,
      {
        parameter: "file",
      },
    );
  sendJson(res, 200, fileObject(stored));
}

/**
 * OpenAI's Files API, for batch input: `POST /v1/files` (multipart), `GET /v1/files`,
 * `GET /v1/files/{id}`, `GET /v1/files/{id}/content`, `DELETE /v1/files/{id}`. Each file is its
 * uploader's key's own; every call spends the key's status budget (`limit`).
 */
export function addFileRoutes(
  app: Express,
  files: FileStore,
  authenticate: RequestHandler,
  limit: RequestHandler,
): void {
  app.post("/v1/files", authenticate, limit, (req, res) => createFile(files, req, res));
  app.get("/v1/files", authenticate, limit, async (req, res) => {
    const { files: page, hasMore } = await files.list(authenticatedKey(req).id, listQuery(req));
    const list: OpenAiFileList = openAiList(page.map(fileObject), hasMore);
    sendJson(res, 200, list);
  });
  app.get("/v1/files/:id", authenticate, limit, async (req, res) => {
    const id = String(req.params.id);
    const file = await files.get(authenticatedKey(req).id, id);
    if (!file) throw notFound(id);
    sendJson(res, 200, fileObject(file));
  });
  app.get("/v1/files/:id/content", authenticate, limit, async (req, res) => {
    const id = String(req.params.id);
    const content = await files.content(authenticatedKey(req).id, id);
    if (content === null) throw notFound(id);
    res.status(200).type("application/octet-stream").send(Buffer.from(content, "utf8"));
  });
  app.delete("/v1/files/:id", authenticate, limit, async (req, res) => {
    const id = String(req.params.id);
    if (!(await files.delete(authenticatedKey(req).id, id))) throw notFound(id);
    sendJson(res, 200, { id, object: "file", deleted: true } satisfies OpenAiFileDeleted);
  });
}
