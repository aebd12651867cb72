/**
 * A batch line's request id: derived from its batch and line, so that feeding a line twice (a feeder
 * killed mid-feed, two feeders) names one request and one BullMQ job. `batch_<hex>` and a line
 * below 50,000 give `batch-<hex>-<line>`, within isRequestId's 64 characters.
 */
export function batchLineRequestId(batchId: string, line: number): string {
  return `${batchId.replace("_", "-")}-${line}`;
}

/** What a line's status record carries (its `batch` field): its batch and line. */
export function batchLineRef(batchId: string, line: number): string {
  return `${batchId}:${line}`;
}

export function parseBatchLineRef(ref: string): { batchId: string; line: number } | null {
  const at = ref.lastIndexOf(":");
  const line = Number(ref.slice(at + 1));
  return at > 0 && Number.isInteger(line) ? { batchId: ref.slice(0, at), line } : null;
}

/** The `id` of a line of the output and error files (OpenAI's `batch_req_…`). */
export function batchRequestLineId(batchId: string, line: number): string {
  return `batch_req_${batchId.slice("batch_".length)}_${line}`;
}
