import type { JobState, ModelId, StatusRecord } from "@chorus/contracts";
import type { Redis } from "ioredis";
import type { RedisKeys } from "../redis/redis-keys.js";
import { CREATE, FINISH, MARK_STARTED, READ, UPDATE_PROGRESS } from "./status-scripts.js";

/** A status record with the fields only the service sees (never sent to clients). */
export interface StoredStatus {
  owner: string;
  /** The model the request was sent to, and when it was accepted (ms): what a listing shows. */
  model: string;
  createdAt: number;
  record: StatusRecord;
  /** Counts every write to the record (0 for a record written before there was a count): the SSE event id. */
  rev: number;
}

export interface Completion {
  reply: string;
  tokens: number;
  promptTokens: number;
  cachedTokens: number;
  processingTime: number;
  droppedMessages: number;
  /** Only when `speak` was asked for: where the spoken reply is, or why there is none. */
  audioUrl?: string;
  audioError?: string;
}

/** Takes the delivery of a record that has just turned final and has a webhook (see webhooks/). */
export interface FinalRecordHook {
  finished(requestId: string, webhook: string): Promise<void>;
}

const NUMERIC_FIELDS = ["tokens", "promptTokens", "cachedTokens", "progress", "estimatedTimeRemaining", "processingTime", "droppedMessages"] as const;

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
  if (hash.audioUrl !== undefined) record.audioUrl = hash.audioUrl;
  if (hash.audioError !== undefined) record.audioError = hash.audioError;
  if (hash.partialReply !== undefined) record.partialReply = hash.partialReply;
  for (const field of NUMERIC_FIELDS) {
    if (hash[field] !== undefined) record[field] = Number(hash[field]);
  }
  return { owner: hash.owner, model: hash.model ?? "", createdAt: Number(hash.createdAt ?? 0), record, rev: Number(hash.rev ?? 0) };
}

/** What the READ script returns: the record's flat field list, then for a waiting job its queue figures. */
export type StatusReadReply = [string[], number?, string?, number?];

/** The keys of the READ script, in its order: the record, then what a waiting job's estimate reads. */
export function statusReadKeys(keys: RedisKeys, requestId: string): string[] {
  return [keys.status(requestId), keys.textJobsWaiting(), keys.textJobStats(), keys.workerSlots()];
}

/** The stored status behind a READ reply (null for no record), with a waiting job's place and ETA. */
export function storedStatusFromRead([flat, ahead, average, slots]: StatusReadReply): StoredStatus | null {
  const fresh = toStoredStatus(toHash(flat));
  if (fresh && ahead !== undefined) addQueueEstimate(fresh.record, ahead, Number(average || 0), slots ?? 0);
  return fresh;
}

type Script = (...args: (string | number)[]) => Promise<unknown>;
interface StatusScripts {
  chorusStatusCreate: Script;
  chorusStatusRead: Script;
  chorusStatusStarted: Script;
  chorusStatusProgress: Script;
  chorusStatusFinish: Script;
}

/** Registers the scripts once per connection: ioredis then sends EVALSHA, not the whole script text. */
function statusScripts(redis: Redis): StatusScripts {
  const scripts = redis as unknown as StatusScripts;
  if (typeof scripts.chorusStatusRead === "function") return scripts;
  redis.defineCommand("chorusStatusCreate", { numberOfKeys: 5, lua: CREATE });
  redis.defineCommand("chorusStatusRead", { numberOfKeys: 4, lua: READ });
  redis.defineCommand("chorusStatusStarted", { numberOfKeys: 3, lua: MARK_STARTED });
  redis.defineCommand("chorusStatusProgress", { numberOfKeys: 2, lua: UPDATE_PROGRESS });
  redis.defineCommand("chorusStatusFinish", { numberOfKeys: 5, lua: FINISH });
  return scripts;
}

/** Status records live in one Redis hash per request; a poll is one script call (one round trip). */
export class StatusStore {
  private readonly scripts: StatusScripts;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
    /** Told of every record this store turns final that carries a webhook (absent: nobody is). */
    private readonly onFinal?: FinalRecordHook,
  ) {
    this.scripts = statusScripts(redis);
  }

  /** A new `processing` record, in the waiting and unfinished sets and its owner's index; one round trip. */
  async create(requestId: string, owner: string, model: ModelId, now = Date.now(), webhook = ""): Promise<void> {
    const k = this.keys;
    const keys = [k.status(requestId), k.textJobTickets(), k.textJobsWaiting(), k.textRequestsUnfinished(), k.textRequestsOfApiKey(owner)];
    await this.scripts.chorusStatusCreate(...keys, this.ttlSeconds, owner, model, now, requestId, webhook);
  }

  /**
   * The record, and for a job still waiting in the queue its position and ETA: one script call, the
   * hot path of every poll. (An HGETALL first and the script only for waiting jobs cost waiting
   * jobs a second command and round trip: measured slower under npm run bench.)
   */
  async get(requestId: string, now = Date.now()): Promise<StoredStatus | null> {
    return storedStatusFromRead((await this.scripts.chorusStatusRead(...statusReadKeys(this.keys, requestId), now)) as StatusReadReply);
  }

  /** Marks the job started (once, whatever the attempt) and returns its status: not `processing` means skip. */
  async markStarted(requestId: string, now = Date.now()): Promise<string | null> {
    const k = this.keys;
    return (await this.scripts.chorusStatusStarted(k.status(requestId), k.textJobsWaiting(), k.statusChangedChannel(), now, requestId)) as string | null;
  }

  /**
   * A page of the ids of requests not yet final accepted at or before `acceptedBefore` (ms), oldest
   * first. Also holds ids whose record has expired; finishing a record takes it out.
   */
  async unfinished(acceptedBefore: number, offset: number, count: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.textRequestsUnfinished(), "-inf", acceptedBefore, "LIMIT", offset, count);
  }

  /** Progress and ETA, and the reply so far when the engine can tell it (left as it was when not). */
  async updateProgress(requestId: string, progress: number, etaSeconds: number, partialReply?: string): Promise<boolean> {
    const reply = partialReply === undefined ? [] : [partialReply];
    const written = await this.scripts.chorusStatusProgress(this.keys.status(requestId), this.keys.statusChangedChannel(), round(progress, 4), round(etaSeconds, 1), requestId, ...reply);
    return written === 1;
  }

  async complete(requestId: string, c: Completion): Promise<boolean> {
    return this.finish(requestId, {
      status: "completed",
      reply: c.reply,
      tokens: c.tokens,
      promptTokens: c.promptTokens,
      cachedTokens: c.cachedTokens,
      processingTime: round(c.processingTime, 3),
      droppedMessages: c.droppedMessages,
      ...(c.audioUrl !== undefined && { audioUrl: c.audioUrl }),
      ...(c.audioError !== undefined && { audioError: c.audioError }),
    });
  }

  async fail(requestId: string, error: string): Promise<boolean> {
    return this.finish(requestId, { status: "error", error });
  }

  private async finish(requestId: string, fields: Record<string, string | number>): Promise<boolean> {
    const args = Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
    const k = this.keys;
    const written = await this.scripts.chorusStatusFinish(
      k.status(requestId),
      k.textJobsWaiting(),
      k.textRequestsUnfinished(),
      k.statusFinalChannel(),
      k.statusChangedChannel(),
      this.ttlSeconds,
      requestId,
      ...args,
    );
    // Only the writer that turned the record final sees its webhook: one delivery, whoever wrote it.
    if (typeof written === "string" && this.onFinal) await this.onFinal.finished(requestId, written);
    return written !== 0;
  }
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
