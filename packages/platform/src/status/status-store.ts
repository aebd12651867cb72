import type { JobState, ModelId, StatusRecord } from "@chorus/contracts";
import type { Redis } from "ioredis";
import type { RedisKeys } from "../redis/redis-keys.js";
import { CREATE, FINISH, MARK_STARTED, READ, UPDATE_PROGRESS } from "./status-scripts.js";

/** A status record with the fields only the service sees (never sent to clients). */
export interface StoredStatus {
  owner: string;
  record: StatusRecord;
}

export interface Completion {
  reply: string;
  tokens: number;
  promptTokens: number;
  processingTime: number;
  droppedMessages: number;
}

const NUMERIC_FIELDS = ["tokens", "promptTokens", "progress", "estimatedTimeRemaining", "processingTime", "droppedMessages"] as const;

function toHash(flat: string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i] as string] = flat[i + 1] as string;
  return hash;
}

/** A waiting job's place: jobs ahead, and the time to its own completion from measured job times. */
function addQueueEstimate(record: StatusRecord, ahead: number, averageSeconds: number, slots: number): void {
  record.queuePosition = ahead;
  if (averageSeconds > 0 && slots > 0) record.estimatedTimeRemaining = round(Math.ceil((ahead + 1) / slots) * averageSeconds, 1);
}

function toStoredStatus(hash: Record<string, string>): StoredStatus | null {
  if (!hash.status || !hash.owner) return null;
  const record: StatusRecord = { status: hash.status as JobState };
  if (hash.reply !== undefined) record.reply = hash.reply;
  if (hash.error !== undefined) record.error = hash.error;
  for (const field of NUMERIC_FIELDS) {
    if (hash[field] !== undefined) record[field] = Number(hash[field]);
  }
  return { owner: hash.owner, record };
}

/** Status records live in one Redis hash per request, so a poll is a single HGETALL. */
export class StatusStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
  ) {}

  /** A new `processing` record holding its queue ticket; one round trip. */
  async create(requestId: string, owner: string, model: ModelId, now = Date.now()): Promise<void> {
    const fields = { status: "processing", owner, model, progress: 0, createdAt: now };
    const args = Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
    await this.redis.eval(CREATE, 2, this.keys.status(requestId), this.keys.textJobsAccepted(), this.ttlSeconds, ...args);
  }

  /** The record, with queue position and ETA while it waits; one round trip (a Lua script). */
  async get(requestId: string, now = Date.now()): Promise<StoredStatus | null> {
    const keys = [this.keys.status(requestId), this.keys.textJobsLeftQueue(), this.keys.textJobStats(), this.keys.workerSlots()];
    const [flat, ahead, average, slots] = (await this.redis.eval(READ, keys.length, ...keys, now)) as [string[], number?, string?, number?];
    const stored = toStoredStatus(toHash(flat));
    if (stored && ahead !== undefined) addQueueEstimate(stored.record, ahead, Number(average || 0), slots ?? 0);
    return stored;
  }

  /** Marks the job started (once, whatever the attempt) and returns its status: not `processing` means skip. */
  async markStarted(requestId: string, now = Date.now()): Promise<string | null> {
    return (await this.redis.eval(MARK_STARTED, 2, this.keys.status(requestId), this.keys.textJobsLeftQueue(), now)) as string | null;
  }

  /** A waiting job removed from the queue (cancelled) no longer counts as ahead of anyone. */
  async markLeftQueue(): Promise<void> {
    await this.redis.incr(this.keys.textJobsLeftQueue());
  }

  async updateProgress(requestId: string, progress: number, etaSeconds: number): Promise<boolean> {
    const written = await this.redis.eval(UPDATE_PROGRESS, 1, this.keys.status(requestId), round(progress, 4), round(etaSeconds, 1));
    return written === 1;
  }

  async complete(requestId: string, c: Completion): Promise<boolean> {
    return this.finish(requestId, {
      status: "completed",
      reply: c.reply,
      tokens: c.tokens,
      promptTokens: c.promptTokens,
      processingTime: round(c.processingTime, 3),
      droppedMessages: c.droppedMessages,
    });
  }

  async fail(requestId: string, error: string): Promise<boolean> {
    return this.finish(requestId, { status: "error", error });
  }

  private async finish(requestId: string, fields: Record<string, string | number>): Promise<boolean> {
    const args = Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
    const written = await this.redis.eval(FINISH, 1, this.keys.status(requestId), this.ttlSeconds, ...args);
    return written === 1;
  }
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

