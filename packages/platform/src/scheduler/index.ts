export {
  BATCH_TURN_WEIGHT,
  batchTurns,
  estimatedTurnCost,
  LAST_TURN,
  measuredTurnCost,
  TIER_TURN_WEIGHT,
  TOKENS_PER_TURN,
  turnsForTokens,
  type QueueJoin,
} from "./fair-turns.js";
export { isExpiredWorkerSlotsEntry, JobTimeStats, liveWorkerCount, workerSlotsEntry } from "./queue-stats.js";
export { ModelFeatures } from "./model-features.js";
export { RequestIndex, type IndexPosition, type IndexSlice } from "./request-index.js";
export {
  StatusStore,
  type BatchLineHook,
  type Completion,
  type FinalRecordHook,
  type FinishedWithWebhook,
  type WebhookTarget,
} from "./status-store.js";
export type { StoredStatus } from "./stored-status.js";
