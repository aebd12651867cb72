import {
  BATCH_LINE_ERRORS,
  chatCompletionOf,
  textCompletionAnswer,
  type BatchStatus,
  type StatusRecord,
} from "@chorus/contracts";
import { batchLineRequestId, batchRequestLineId, type BatchStore, type StoredBatch } from "@chorus/platform/batches";
import type { FileStore, StoredFile } from "@chorus/platform/files";
import type { StatusStore, StoredStatus } from "@chorus/platform/scheduler";
import type { BatchLine } from "./read-batch-lines.js";

/** Output and error files live as long as a batch file does by default (OpenAI keeps them 30 days). */
const RESULT_FILE_SECONDS = 30 * 24 * 3600;

/** How a line that did not complete is told in the error file. */
function lineError(stored: StoredStatus | null, kept: string | undefined, unfed: string) {
  if (kept) return JSON.parse(kept) as { code: string; message: string };
  if (!stored) return { code: unfed, message: `the line did not run: the batch is ${unfed.replace("batch_", "")}` };
  const { errorCode, error } = stored.record;
  const code =
    errorCode === "queue_timeout"
      ? BATCH_LINE_ERRORS.expired
      : errorCode === "cancelled"
        ? BATCH_LINE_ERRORS.cancelled
        : (errorCode ?? "server_error");
  return { code, message: error ?? "the request failed" };
}

/** One line of the output or error file, in OpenAI's shape. */
function resultLine(batch: StoredBatch, index: number, line: BatchLine, stored: StoredStatus | null, error: unknown) {
  const id = batchRequestLineId(batch.id, index);
  const requestId = batchLineRequestId(batch.id, index);
  if (error) return { id, custom_id: line.custom_id, response: null, error };
  const identity = { requestId, model: stored!.model, created: Math.floor(stored!.createdAt / 1000) };
  const record: StatusRecord = stored!.record;
  const body =
    batch.endpoint === "/v1/chat/completions"
      ? chatCompletionOf(identity, record)
      : textCompletionAnswer(identity, record);
  return { id, custom_id: line.custom_id, response: { status_code: 200, request_id: requestId, body }, error: null };
}

/**
 * Writes a batch's output file (its completed lines) and error file (the rest: failed, cancelled,
 * expired, never run), purpose `batch_output`, in input order, through the FileStore. File ids are
 * derived from the batch, so a finisher killed halfway writes the same files again.
 */
export async function writeBatchResults(
  deps: { batches: BatchStore; files: FileStore; statuses: StatusStore },
  batch: StoredBatch,
  final: BatchStatus,
): Promise<{ output: string | null; error: string | null }> {
  const [lines, ended] = await Promise.all([deps.batches.lines(batch.id), deps.batches.ended(batch.id)]);
  const unfed = final === "cancelled" ? BATCH_LINE_ERRORS.cancelled : BATCH_LINE_ERRORS.expired;
  const output: string[] = [];
  const errors: string[] = [];
  for (const [index, text] of lines.entries()) {
    const kept = ended.get(index);
    const stored = kept ? null : await deps.statuses.get(batchLineRequestId(batch.id, index));
    const completed = stored?.record.status === "completed";
    const error = completed ? null : lineError(stored?.record.status === "error" ? stored : null, kept, unfed);
    const line = JSON.stringify(resultLine(batch, index, JSON.parse(text) as BatchLine, stored, error));
    (completed ? output : errors).push(line);
  }
  const put = (suffix: string, content: string[]) => putResultFile(deps.files, batch, suffix, content);
  return { output: await put("output", output), error: await put("errors", errors) };
}

async function putResultFile(files: FileStore, batch: StoredBatch, suffix: string, content: string[]) {
  if (content.length === 0) return null;
  const now = Date.now();
  const file: StoredFile = {
    id: `file-${batch.id.slice("batch_".length)}${suffix === "output" ? "o" : "e"}`,
    filename: `${batch.id}_${suffix}.jsonl`,
    purpose: "batch_output",
    bytes: 0,
    createdAt: now,
    expiresAt: now + RESULT_FILE_SECONDS * 1000,
  };
  const text = content.join("\n") + "\n";
  file.bytes = Buffer.byteLength(text);
  if (await files.get(batch.keyId, file.id)) return file.id;
  return (await files.put(batch.keyId, file, text)) ? file.id : null;
}
