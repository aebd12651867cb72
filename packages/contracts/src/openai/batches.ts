/**
 * OpenAI's Batch API as Chorus runs it: a file of requests (purpose `batch`), run as ordinary
 * requests of the key that created the batch, answered in an output and an error file. The bounds
 * and states are documented in docs/batches.md.
 */
import type { OpenAiList } from "./openai-shapes.js";

export const BATCH_ENDPOINTS = ["/v1/chat/completions", "/v1/completions"] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

export const BATCH_LIMITS = {
  /** The only window OpenAI offers (and the one Chorus honours). */
  completionWindow: "24h",
  windowSeconds: 24 * 3600,
  /** `metadata`: OpenAI's bounds. */
  metadata: { maxPairs: 16, maxKeyChars: 64, maxValueChars: 512 },
  /** Bad lines a 400 lists (the first is also named in its message and `param`). */
  maxReportedErrors: 100,
  /** `limit` of a listing: OpenAI's bounds and default. */
  list: { min: 1, max: 100, default: 20 },
} as const;

export type BatchStatus =
  "validating" | "failed" | "in_progress" | "finalizing" | "completed" | "expired" | "cancelling" | "cancelled";

/** States a batch never leaves. */
export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ["failed", "completed", "expired", "cancelled"];

/** OpenAI's batch object. Times are Unix seconds (null until the batch gets there). */
export interface OpenAiBatch {
  id: string;
  object: "batch";
  endpoint: BatchEndpoint;
  errors: { object: "list"; data: BatchLineError[] } | null;
  input_file_id: string;
  completion_window: "24h";
  status: BatchStatus;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
}

/** One bad line of a batch's input: its 1-based number, the field at fault, what is wrong. */
export interface BatchLineError {
  code?: string;
  line: number;
  param: string | null;
  message: string;
}

export type OpenAiBatchList = OpenAiList<OpenAiBatch>;

/** Codes of a line that did not complete, in the error file (`error.code`). */
export const BATCH_LINE_ERRORS = {
  cancelled: "batch_cancelled",
  expired: "batch_expired",
  quota: "insufficient_quota",
  model: "model_not_found",
  forbidden: "permission_denied",
  invalid: "invalid_request",
} as const;
