import type { FailureCode, FinishReason, JobState, StatusRecord, ToolCall } from "@chorus/contracts";
import type { RedisKeys } from "../redis/redis-keys.js";

/** A status record with the fields only the service sees (never sent to clients). */
export interface StoredStatus {
  owner: string;
  /** The model the request was sent to, and when it was accepted (ms): what a listing shows. */
  model: string;
  createdAt: number;
  record: StatusRecord;
  /** Counts every write to the record (0 for a record written before there was a count): the SSE event id. */
  rev: number;
  /** The attempt whose text `record.partialReply` is (absent from records of an earlier release). */
  partialAttempt?: string;
  /** When a worker started it (ms; absent while it waits). */
  startedAt?: number;
}

const NUMERIC_FIELDS = [
  "tokens",
  "promptTokens",
  "cachedTokens",
  "progress",
  "estimatedTimeRemaining",
  "processingTime",
  "droppedMessages",
  "maxTokens",
] as const;

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * The expected time (s) to a waiting job's own completion; undefined while nothing is measured or no
 * worker is live. Every slot is busy and each running job a uniformly random part of a job time from
 * its end, so the k-th slot frees itself k / (slots + 1) of a job time from now: the job `ahead`
 * places back starts in round floor(ahead / slots) on the (ahead mod slots + 1)-th slot to free.
 */
export function queuedEtaSeconds(ahead: number, averageSeconds: number, slots: number): number | undefined {
  if (!(averageSeconds > 0) || !(slots > 0)) return undefined;
  const rounds = Math.floor(ahead / slots) + ((ahead % slots) + 1) / (slots + 1);
  return round(averageSeconds * (1 + rounds), 1);
}

function addQueueEstimate(record: StatusRecord, ahead: number, averageSeconds: number, slots: number): void {
  record.queuePosition = ahead;
  const eta = queuedEtaSeconds(ahead, averageSeconds, slots);
  if (eta !== undefined) record.estimatedTimeRemaining = eta;
}

function toStoredStatus(hash: Record<string, string>): StoredStatus | null {
  if (!hash.status || !hash.owner) return null;
  const record: StatusRecord = { status: hash.status as JobState };
  if (hash.reply !== undefined) record.reply = hash.reply;
  if (hash.error !== undefined) record.error = hash.error;
  if (hash.audioUrl !== undefined) record.audioUrl = hash.audioUrl;
  if (hash.audioTruncated === "1") record.audioTruncated = true;
  if (hash.audioError !== undefined) record.audioError = hash.audioError;
  if (hash.partialReply !== undefined) record.partialReply = hash.partialReply;
  if (hash.finishReason !== undefined) record.finishReason = hash.finishReason as FinishReason;
  if (hash.errorCode !== undefined) record.errorCode = hash.errorCode as FailureCode;
  if (hash.toolCalls !== undefined) record.toolCalls = JSON.parse(hash.toolCalls) as ToolCall[];
  for (const field of NUMERIC_FIELDS) {
    if (hash[field] !== undefined) record[field] = Number(hash[field]);
  }
  return {
    owner: hash.owner,
    model: hash.model ?? "",
    createdAt: Number(hash.createdAt ?? 0),
    record,
    rev: Number(hash.rev ?? 0),
    ...(hash.partialAttempt !== undefined && { partialAttempt: hash.partialAttempt }),
    ...(hash.startedAt !== undefined && { startedAt: Number(hash.startedAt) }),
  };
}

/** What queue-place-3.lua returns: nothing for a job not waiting, else jobs ahead, average job seconds, live slots. */
export type QueuePlaceReply = [] | [number, string, number];

/** The keys of queue-place-3.lua, in its order: the waiting set, then what a waiting job's estimate reads. */
export function queuePlaceKeys(keys: RedisKeys): string[] {
  return [keys.textJobsWaiting(), keys.textJobStats(), keys.workerSlots()];
}

/**
 * A record still waiting for a worker: only such a record has a queue place (one started or final a moment before the
 * queue's side was told keeps none). read-status-4.lua applies the same rule in Lua.
 */
export function isWaiting(hash: Record<string, string>): boolean {
  return hash.status === "processing" && hash.startedAt === undefined;
}

/** A hash from HGETALL's flat reply, as a script returns it. */
export function hashOfFlatReply(flat: string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
  return hash;
}

/** The stored status behind a record's fields (null for no record), with a waiting job's place and ETA. */
export function storedStatusOf(
  hash: Record<string, string>,
  [ahead, average, slots]: QueuePlaceReply,
): StoredStatus | null {
  const fresh = toStoredStatus(hash);
  if (fresh && isWaiting(hash) && ahead !== undefined)
    addQueueEstimate(fresh.record, ahead, Number(average || 0), slots ?? 0);
  return fresh;
}
