export { BatchStore, type NewBatch, type StoredBatch } from "./batch-store.js";
export { batchLineRef, batchLineRequestId, batchRequestLineId, parseBatchLineRef } from "./batch-line-id.js";
export { BatchLineCounter } from "./batch-line-counter.js";
