import type { JobState, ModelId, StatusRecord } from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import {
  JOIN_QUEUE,
  LAST_TURN,
  LEAVE_QUEUE,
  parseQueueJoin,
  QUEUE_PLACE,
  RESTART_TURNS_AFTER,
  START_TURN,
  type QueueJoin,
} from "./fair-turns.js";
import { CREATE, FINISH, INDEX, MARK_STARTED, UPDATE_PROGRESS } from "./status-scripts.js";
import { READ_STATUS, SUBMIT, SUBMIT_PARTS } from "./one-redis-scripts.js";

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
  audioTruncated?: true;
  audioError?: string;
}

/** Takes the delivery of a record that has just turned final and has a webhook (see webhooks/). */
export interface FinalRecordHook {
  finished(requestId: string, webhook: string): Promise<void>;
}

const NUMERIC_FIELDS = [
  "tokens",
  "promptTokens",
  "cachedTokens",
  "progress",
  "estimatedTimeRemaining",
  "processingTime",
  "droppedMessages",
] as const;

/**
 * The expected time to a waiting job's own completion (s), from measured job times; undefined while
 * nothing is measured or no worker is live. A job waits only while every slot is busy. With each
 * running job a uniformly random part of a job time from its end, the k-th slot to free itself does
 * so k / (slots + 1) of a job time from now on average, and every later job frees its slot one job
 * time after it started. So the job `ahead` places back starts in round floor(ahead / slots) on the
 * (ahead mod slots + 1)-th slot to free, then runs one job time itself. (Whole rounds of job times,
 * ceil((ahead + 1) / slots), left out the jobs running now: the next job in line could show less time
 * left than the job it waited for.)
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
  for (const field of NUMERIC_FIELDS) {
    if (hash[field] !== undefined) record[field] = Number(hash[field]);
  }
  return {
    owner: hash.owner,
    model: hash.model ?? "",
    createdAt: Number(hash.createdAt ?? 0),
    record,
    rev: Number(hash.rev ?? 0),
  };
}

/** What QUEUE_PLACE returns: nothing for a job not waiting, else jobs ahead, average job seconds, live slots. */
export type QueuePlaceReply = [] | [number, string, number];

/** The keys of the QUEUE_PLACE script, in its order: the waiting set, then what a waiting job's estimate reads. */
export function queuePlaceKeys(keys: RedisKeys): string[] {
  return [keys.textJobsWaiting(), keys.textJobStats(), keys.workerSlots()];
}

/**
 * A record still waiting for a worker: only such a record has a queue place (one started or final a moment before the
 * queue's side was told keeps none). READ_STATUS (one-redis-scripts.ts) applies the same rule in Lua.
 */
function isWaiting(hash: Record<string, string>): boolean {
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

type Script = (...args: (string | number)[]) => Promise<unknown>;
interface StatusScripts {
  chorusStatusCreate: Script;
  chorusStatusIndex: Script;
  chorusStatusStarted: Script;
  chorusStatusProgress: Script;
  chorusStatusFinish: Script;
  chorusQueueJoin: Script;
  chorusQueuePlace: Script;
  chorusQueueLeave: Script;
  chorusQueueStart: Script;
  chorusSubmit: Script;
  chorusStatusRead: Script;
}

type JoinReply = Parameters<typeof parseQueueJoin>[0];

/** Registers the scripts once per connection: ioredis then sends EVALSHA, not the whole script text. */
function statusScripts(redis: RedisClient): StatusScripts {
  const scripts = redis as unknown as StatusScripts;
  if (typeof scripts.chorusStatusRead === "function") return scripts;
  redis.defineCommand("chorusStatusCreate", { numberOfKeys: 1, lua: CREATE });
  redis.defineCommand("chorusStatusIndex", { numberOfKeys: 1, lua: INDEX });
  redis.defineCommand("chorusStatusStarted", { numberOfKeys: 1, lua: MARK_STARTED });
  redis.defineCommand("chorusStatusProgress", { numberOfKeys: 1, lua: UPDATE_PROGRESS });
  redis.defineCommand("chorusStatusFinish", { numberOfKeys: 1, lua: FINISH });
  redis.defineCommand("chorusQueueJoin", { numberOfKeys: 8, lua: JOIN_QUEUE });
  redis.defineCommand("chorusQueuePlace", { numberOfKeys: 3, lua: QUEUE_PLACE });
  redis.defineCommand("chorusQueueStart", { numberOfKeys: 3, lua: START_TURN });
  redis.defineCommand("chorusQueueLeave", { numberOfKeys: 5, lua: LEAVE_QUEUE });
  const { join, create, index } = SUBMIT_PARTS;
  redis.defineCommand("chorusSubmit", { numberOfKeys: join.keys + create.keys + index.keys, lua: SUBMIT });
  redis.defineCommand("chorusStatusRead", { numberOfKeys: 4, lua: READ_STATUS });
  return scripts;
}

/**
 * Status records live in one Redis hash per request; the queue's sets beside them sit in another
 * cluster slot, so a step that changes both sends the record's script and the queue's together.
 */
export class StatusStore {
  private readonly scripts: StatusScripts;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
    /** Told of every record this store turns final that carries a webhook (absent: nobody is). */
    private readonly onFinal?: FinalRecordHook,
  ) {
    this.scripts = statusScripts(redis);
  }

  /**
   * A new request: it joins the queue (fair-turns.ts: its ticket and turn, counted in its key's
   * requests in flight, or refused with nothing written when the key already holds `inFlightCap`;
   * 0: no cap), then gets its `processing` record and its place in its owner's index. On one Redis
   * that is one script. On a cluster the three sit in different slots: the queue's side goes
   * first, so a record is only ever written once its id is in the unfinished set, where the sweep
   * finds it whatever fails after. Either way the record is written when this resolves.
   */
  async create(
    requestId: string,
    owner: string,
    model: ModelId,
    now = Date.now(),
    webhook = "",
    inFlightCap = 0,
  ): Promise<QueueJoin> {
    const k = this.keys;
    const queueKeys = [
      k.textJobTickets(),
      k.textJobsWaiting(),
      k.textRequestsUnfinished(),
      k.textQueueTurns(),
      k.textRequestsInFlight(),
      k.textRequestOwners(),
      k.textJobStats(),
      k.textJobsBacklog(),
    ];
    const joinArgs = [now, requestId, owner, inFlightCap, LAST_TURN];
    const createArgs = [this.ttlSeconds, owner, model, now, webhook];
    const indexArgs = [this.ttlSeconds, now, requestId];
    if (!this.redis.isCluster) {
      const reply = await this.scripts.chorusSubmit(
        ...queueKeys,
        k.status(requestId),
        k.textRequestsOfApiKey(owner),
        ...joinArgs,
        ...createArgs,
        ...indexArgs,
      );
      return parseQueueJoin(reply as JoinReply);
    }
    const joined = parseQueueJoin((await this.scripts.chorusQueueJoin(...queueKeys, ...joinArgs)) as JoinReply);
    if (!joined.joined) return joined;
    await Promise.all([
      this.scripts.chorusStatusCreate(k.status(requestId), ...createArgs),
      this.scripts.chorusStatusIndex(k.textRequestsOfApiKey(owner), ...indexArgs),
    ]);
    return joined;
  }

  /**
   * The record, and for a job still waiting in the queue its position and ETA: the hot path of
   * every poll. On one Redis that is one script (its failure fails the poll, as Redis is down). On a
   * Redis Cluster the queue is asked only for a record that says it waits (a second round trip for
   * those alone), so polls of running and finished requests touch only their record's node, not the
   * one node that holds the text queue; a place that cannot be read leaves the record without one.
   */
  async get(requestId: string, now = Date.now()): Promise<StoredStatus | null> {
    if (!this.redis.isCluster) {
      const [flat, place = []] = (await this.scripts.chorusStatusRead(
        this.keys.status(requestId),
        ...queuePlaceKeys(this.keys),
        now,
        requestId,
      )) as [string[], QueuePlaceReply?];
      return storedStatusOf(hashOfFlatReply(flat), place);
    }
    const hash = await this.redis.hgetall(this.keys.status(requestId));
    if (!isWaiting(hash)) return storedStatusOf(hash, []);
    // A place that cannot be read (the queue's node failing over) leaves the record without one, not the poll without
    // an answer.
    const place = await (
      this.scripts.chorusQueuePlace(...queuePlaceKeys(this.keys), now, requestId) as Promise<QueuePlaceReply>
    ).catch((): QueuePlaceReply => []);
    return storedStatusOf(hash, place);
  }

  /** Marks the job started (once, whatever the attempt) and returns its status: not `processing` means skip. */
  async markStarted(requestId: string, now = Date.now()): Promise<string | null> {
    const k = this.keys;
    const [status] = await Promise.all([
      this.scripts.chorusStatusStarted(k.status(requestId), now, requestId, k.statusChangedChannel()) as Promise<
        string | null
      >,
      // The record says `startedAt`, so no reader counts it as waiting; the id leaves the set for good when it turns
      // final.
      this.scripts
        .chorusQueueStart(k.textJobsWaiting(), k.textQueueTurns(), k.textJobsBacklog(), requestId, RESTART_TURNS_AFTER)
        .catch(() => 0),
    ]);
    return status;
  }

  /**
   * A page of the ids of requests not yet final accepted at or before `acceptedBefore` (ms), oldest
   * first. Also holds ids whose record has expired; finishing a record takes it out.
   */
  async unfinished(acceptedBefore: number, offset: number, count: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.textRequestsUnfinished(), "-inf", acceptedBefore, "LIMIT", offset, count);
  }

  /** Progress and ETA, and the reply so far when the engine can tell it (left as it was when not). */
  async updateProgress(
    requestId: string,
    progress: number,
    etaSeconds: number,
    partialReply?: string,
  ): Promise<boolean> {
    const reply = partialReply === undefined ? [] : [partialReply];
    const k = this.keys;
    const written = await this.scripts.chorusStatusProgress(
      k.status(requestId),
      round(progress, 4),
      round(etaSeconds, 1),
      requestId,
      k.statusChangedChannel(),
      ...reply,
    );
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
      ...(c.audioTruncated && { audioTruncated: 1 }),
      ...(c.audioError !== undefined && { audioError: c.audioError }),
    });
  }

  async fail(requestId: string, error: string): Promise<boolean> {
    return this.finish(requestId, { status: "error", error });
  }

  /**
   * Whatever the record says (already final, expired), the id leaves the queue's sets. Only the
   * record's write decides the outcome: should the queue's side fail (its node failing over), the
   * id stays in the unfinished set, where the lost-job sweep finds the record final and takes it out.
   */
  private async finish(requestId: string, fields: Record<string, string | number>): Promise<boolean> {
    const args = Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
    const k = this.keys;
    const [written] = await Promise.all([
      this.scripts.chorusStatusFinish(
        k.status(requestId),
        this.ttlSeconds,
        requestId,
        k.statusFinalChannel(),
        k.statusChangedChannel(),
        ...args,
      ),
      this.scripts
        .chorusQueueLeave(
          k.textJobsWaiting(),
          k.textRequestsUnfinished(),
          k.textRequestsInFlight(),
          k.textRequestOwners(),
          k.textJobsBacklog(),
          requestId,
        )
        .catch(() => 0),
    ]);
    // Only the writer that turned the record final sees its webhook: one delivery, whoever wrote it.
    if (typeof written === "string" && this.onFinal) await this.onFinal.finished(requestId, written);
    return written !== 0;
  }
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
