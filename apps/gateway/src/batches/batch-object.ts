import type { OpenAiBatch } from "@chorus/contracts";
import type { StoredBatch } from "@chorus/platform/batches";

/** A stored batch as OpenAI's batch object. */
export function batchObject(batch: StoredBatch): OpenAiBatch {
  const at = (field: string) => batch.times[field] ?? null;
  return {
    id: batch.id,
    object: "batch",
    endpoint: batch.endpoint,
    errors: null,
    input_file_id: batch.inputFileId,
    completion_window: "24h",
    status: batch.status,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: batch.times.created_at ?? 0,
    in_progress_at: at("in_progress_at"),
    expires_at: batch.times.expires_at ?? 0,
    finalizing_at: at("finalizing_at"),
    completed_at: at("completed_at"),
    failed_at: at("failed_at"),
    expired_at: at("expired_at"),
    cancelling_at: at("cancelling_at"),
    cancelled_at: at("cancelled_at"),
    request_counts: { total: batch.total, completed: batch.completed, failed: batch.failed },
    metadata: batch.metadata,
  };
}
