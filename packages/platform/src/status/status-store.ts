import type { JobState, ModelId, StatusRecord } from "@chorus/contracts";
import type { Redis } from "ioredis";
import type { RedisKeys } from "../redis/redis-keys.js";
import { FINISH, UPDATE_PROGRESS } from "./status-scripts.js";

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

  async create(requestId: string, owner: string, model: ModelId, now = Date.now()): Promise<void> {
    const key = this.keys.status(requestId);
    await this.redis
      .multi()
      .hset(key, { status: "processing", owner, model, progress: 0, createdAt: now })
      .expire(key, this.ttlSeconds)
      .exec()
      .then(throwOnFailedTransaction);
  }

  async get(requestId: string): Promise<StoredStatus | null> {
    return toStoredStatus(await this.redis.hgetall(this.keys.status(requestId)));
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

  /** Whether the record is still `processing` (one HGET; false when it is gone). */
  async isProcessing(requestId: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.status(requestId), "status")) === "processing";
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

function throwOnFailedTransaction(results: [Error | null, unknown][] | null): void {
  const failure = results?.find(([error]) => error !== null)?.[0];
  if (failure) throw failure;
  if (results === null) throw new Error("Redis transaction was aborted");
}
