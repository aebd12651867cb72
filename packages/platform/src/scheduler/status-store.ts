import {
  CANCELLED_ERROR,
  parseWebhookEvents,
  storedWebhookEvents,
  webhookEventOf,
  type FailureCode,
  type FinishReason,
  type GeneratedReply,
  type ModelId,
  type WebhookEvent,
} from "@chorus/contracts";
import type { RedisClient } from "../redis/connection.js";
import { defineLuaScripts, type LuaCommand } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import type { JobAmounts, JobEnd } from "../usage/usage-figures.js";
import type { RidesWithMetering, UsageMeter } from "../usage/usage-meter.js";
import { LAST_TURN, parseQueueJoin, RESTART_TURNS_AFTER, type QueueJoin } from "./fair-turns.js";
import {
  hashOfFlatReply,
  isWaiting,
  queuedEtaSeconds,
  queuePlaceKeys,
  round,
  storedStatusOf,
  type QueuePlaceReply,
  type StoredStatus,
} from "./stored-status.js";

/** A generated reply as its record is written: with the spoken reply's fields where `speak` was asked for. */
export interface Completion extends GeneratedReply {
  /** Only when `speak` was asked for: where the spoken reply is, or why there is none. */
  audioUrl?: string;
  audioTruncated?: true;
  audioError?: string;
  /** A spoken reply's characters and seconds, for the key's usage (not part of the record). */
  spoken?: { characters: number; audioSeconds: number };
}

/** Where a request's final record goes, and for which of its ends. */
export interface WebhookTarget {
  url: string;
  /** Absent: the default (completed and error, not the client's own cancel). */
  events?: readonly WebhookEvent[];
}

/** A record that has just turned final and has a webhook. */
export interface FinishedWithWebhook {
  requestId: string;
  url: string;
  /** The API key that sent the request. */
  keyId: string;
  /** How it ended, and the events the request asked to have delivered. */
  event: WebhookEvent;
  events: WebhookEvent[];
}

/** Counts a batch line's end in its batch (batches/batch-line-counter.ts). */
export interface BatchLineHook {
  ended(ref: string, requestId: string, completed: boolean): Promise<void>;
}

/** Takes the delivery of a record that has just turned final and has a webhook (see webhooks/). */
export interface FinalRecordHook {
  finished(record: FinishedWithWebhook): Promise<void>;
}

type JoinReply = Parameters<typeof parseQueueJoin>[0];

/**
 * How a final record's job ended, for its key's usage; null for a submit that never became a job
 * (its client got an error, never its id).
 */
function jobEndOf(fields: Record<string, string | number>): JobEnd | null {
  if (fields.status === "completed") return "completed";
  if (fields.errorCode === "not_queued") return null;
  return fields.errorCode === "cancelled" ? "cancelled" : "error";
}

/** On one Redis a submit and a read are one script each; a cluster sends their parts (the others) apart. */
const SCRIPTS = {
  submit: "submit-request-10.lua",
  read: "read-status-4.lua",
  join: "join-queue-8.lua",
  create: "create-status-1.lua",
  index: "index-request-1.lua",
  place: "queue-place-3.lua",
  started: "mark-started-1.lua",
  progress: "update-progress-1.lua",
  finish: "finish-status-1.lua",
  finishUnstarted: "finish-unstarted-1.lua",
  startTurn: "start-turn-3.lua",
  settleTurn: "settle-turn-1.lua",
  leave: "leave-queue-5.lua",
} as const;

/**
 * Status records live in one Redis hash per request, each transition an atomic, one-way script
 * (src/lua/). The text queue's side follows them in sets kept by membership (a step counted twice
 * changes nothing): the waiting set holds the ids of jobs accepted and not yet started, in the order
 * they will start (a job's queue position is its rank); the unfinished set those of requests not yet
 * final, by acceptance time, for the sweep that finds records whose job vanished. A record leaves both
 * when it turns final, whoever writes that. Records and sets sit in different cluster slots, so a step
 * that changes both sends the record's script and the queue's together; between the two a set may
 * briefly disagree with a record, which readers tolerate (the lost-job sweep takes out an id whose
 * record is gone or final).
 */
export class StatusStore {
  private readonly scripts: Record<keyof typeof SCRIPTS, LuaCommand>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly ttlSeconds: number,
    /** Told of every record this store turns final that carries a webhook (absent: nobody is). */
    private readonly onFinal?: FinalRecordHook,
    /** Meters every request this store turns final into its key's usage (absent: none is). */
    private readonly usage?: UsageMeter,
    /** Counts every batch line this store turns final in its batch (absent: none is). */
    private readonly batchLines?: BatchLineHook,
  ) {
    this.scripts = defineLuaScripts(redis, new URL("../lua/", import.meta.url), SCRIPTS);
  }

  /**
   * A new request: it joins the queue (fair-turns.ts: its ticket and turn, `cost` turns before its
   * key's next, counted in its key's requests in flight, or refused with nothing written when the key
   * already holds `inFlightCap`; null: no cap), then gets its `processing` record and its place in
   * its owner's index. On one Redis that is one script. On a cluster the three sit in different
   * slots: the queue's side goes first, so a record is only ever written once its id is in the
   * unfinished set, where the sweep finds it whatever fails after. Either way the record is written when this resolves.
   * `turnTenant` is whose turns it takes (default: its owner's; a batch line's are `<key id>:batch`).
   */
  async create(
    requestId: string,
    owner: string,
    model: ModelId,
    now = Date.now(),
    webhook?: WebhookTarget,
    inFlightCap: number | null = null,
    cost = 1,
    turnTenant = owner,
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
    const joinArgs = [now, requestId, turnTenant, inFlightCap ?? 0, LAST_TURN, cost];
    const createArgs = [this.ttlSeconds, owner, model, now, webhook?.url ?? "", storedWebhookEvents(webhook?.events)];
    const indexArgs = [this.ttlSeconds, now, requestId];
    if (!this.redis.isCluster) {
      const reply = await this.scripts.submit(
        ...queueKeys,
        k.status(requestId),
        k.textRequestsOfApiKey(owner),
        ...joinArgs,
        ...createArgs,
        ...indexArgs,
      );
      return parseQueueJoin(reply as JoinReply);
    }
    const joined = parseQueueJoin((await this.scripts.join(...queueKeys, ...joinArgs)) as JoinReply);
    if (!joined.joined) return joined;
    await Promise.all([
      this.scripts.create(k.status(requestId), ...createArgs),
      this.scripts.index(k.textRequestsOfApiKey(owner), ...indexArgs),
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
      const [flat, place = []] = (await this.scripts.read(
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
      this.scripts.place(...queuePlaceKeys(this.keys), now, requestId) as Promise<QueuePlaceReply>
    ).catch((): QueuePlaceReply => []);
    return storedStatusOf(hash, place);
  }

  /** Marks a batch line's record with its batch and line (batchLineRef): its end is counted there. */
  async tagBatchLine(requestId: string, ref: string): Promise<void> {
    await this.redis.hset(this.keys.status(requestId), "batch", ref);
  }

  /** Marks the job started (once, whatever the attempt) and returns its status: not `processing` means skip. */
  async markStarted(requestId: string, now = Date.now()): Promise<string | null> {
    const k = this.keys;
    const [status] = await Promise.all([
      this.scripts.started(k.status(requestId), now, requestId, k.statusChangedChannel()) as Promise<string | null>,
      // The record says `startedAt`, so no reader counts it as waiting; the id leaves the set for good when it turns
      // final.
      this.scripts
        .startTurn(k.textJobsWaiting(), k.textQueueTurns(), k.textJobsBacklog(), requestId, RESTART_TURNS_AFTER)
        .catch(() => 0),
    ]);
    return status;
  }

  /**
   * A finished request's measured cost corrects the estimate its key was charged at its join
   * (settle-turn-1.lua): the key's next request moves earlier by what it was overcharged, later by
   * what it was undercharged. Resolves to the turn that next request may take (null: the key is not
   * in the turns, which started over).
   */
  async settleTurn(keyId: string, estimated: number, measured: number): Promise<number | null> {
    if (estimated === measured) return null;
    const corrected = await this.scripts.settleTurn(this.keys.textQueueTurns(), keyId, measured - estimated);
    return corrected === null ? null : Number(corrected);
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
    partialReply?: { text: string; attempt: string },
  ): Promise<boolean> {
    const reply = partialReply === undefined ? [] : [partialReply.text, partialReply.attempt];
    const k = this.keys;
    const written = await this.scripts.progress(
      k.status(requestId),
      round(progress, 4),
      round(etaSeconds, 1),
      requestId,
      k.statusChangedChannel(),
      ...reply,
    );
    return written === 1;
  }

  /**
   * `alongside` adds once-per-job commands of the same API key (a budget's settlement) to the
   * metering batch, so they cost no round trip of their own; it is called only when this call turns
   * the record final and meters it (else its caller sends them itself).
   */
  async complete(requestId: string, c: Completion, alongside?: RidesWithMetering): Promise<boolean> {
    const used: JobAmounts = {
      promptTokens: c.promptTokens,
      cachedPromptTokens: c.cachedTokens,
      completionTokens: c.tokens,
      ...(c.spoken && { characters: c.spoken.characters, audioSeconds: c.spoken.audioSeconds }),
    };
    return this.finish(
      requestId,
      used,
      {
        status: "completed",
        reply: c.reply,
        tokens: c.tokens,
        promptTokens: c.promptTokens,
        cachedTokens: c.cachedTokens,
        processingTime: round(c.processingTime, 3),
        droppedMessages: c.droppedMessages,
        finishReason: c.finishReason,
        maxTokens: c.maxTokens,
        ...(c.toolCalls?.length && { toolCalls: JSON.stringify(c.toolCalls) }),
        ...(c.audioUrl !== undefined && { audioUrl: c.audioUrl }),
        ...(c.audioTruncated && { audioTruncated: 1 }),
        ...(c.audioError !== undefined && { audioError: c.audioError }),
      },
      this.scripts.finish,
      alongside,
    );
  }

  /** An `error` record: `code` says what kind of failure it is (a cancel's is `cancelled`, whoever writes it). */
  async fail(requestId: string, error: string, code?: FailureCode): Promise<boolean> {
    const fields: Record<string, string> = { status: "error", error };
    const kind = code ?? (error === CANCELLED_ERROR ? "cancelled" : undefined);
    if (kind) fields.errorCode = kind;
    if (kind === "cancelled") fields.finishReason = "cancelled" satisfies FinishReason;
    return this.finish(requestId, {}, fields);
  }

  /**
   * Ends a request no worker has started as `error`: `queue_timeout` (its queue deadline passed); or,
   * `refusedAtSubmit`, `not_queued` with no webhook delivered (its client is refused at submit and
   * never holds the id). False when it has started (then it runs to its end) or is already final.
   */
  async expireUnstarted(requestId: string, error: string, refusedAtSubmit = false): Promise<boolean> {
    const code: FailureCode = refusedAtSubmit ? "not_queued" : "queue_timeout";
    const fields = { status: "error", error, errorCode: code };
    return this.finish(requestId, {}, fields, (...args) =>
      this.scripts.finishUnstarted(...args.slice(0, 5), refusedAtSubmit ? "1" : "0", ...args.slice(5)),
    );
  }

  /**
   * For a request waiting in the queue: when it should start (s from now), by the same estimate as
   * its status record's ETA less its own run; null when it is not waiting, or nothing is measured
   * or no worker is live (then no estimate is made).
   */
  async startEstimateSeconds(requestId: string, now = Date.now()): Promise<number | null> {
    const place = (await this.scripts.place(...queuePlaceKeys(this.keys), now, requestId)) as QueuePlaceReply;
    if (place.length === 0) return null;
    const [ahead, average, slots] = place;
    const eta = queuedEtaSeconds(ahead, Number(average), slots);
    return eta === undefined ? null : Math.max(0, eta - Number(average));
  }

  /**
   * The turn (its job's BullMQ priority) of a request still in the waiting set, as join-queue-8.lua
   * scored it (turn * 2^32 + ticket); null once it started, ended or never joined.
   */
  async waitingTurn(requestId: string): Promise<number | null> {
    const score = await this.redis.zscore(this.keys.textJobsWaiting(), requestId);
    return score === null ? null : Math.floor(Number(score) / 2 ** 32);
  }

  /**
   * Whatever the record says (already final, expired), the id leaves the queue's sets. Only the
   * record's write decides the outcome: should the queue's side fail (its node failing over), the
   * id stays in the unfinished set, where the lost-job sweep finds the record final and takes it out.
   * The writer that turned it final meters it (`used`: what it cost) and queues its webhook.
   */
  private async finish(
    requestId: string,
    used: JobAmounts,
    fields: Record<string, string | number>,
    script: LuaCommand = this.scripts.finish,
    alongside?: RidesWithMetering,
  ): Promise<boolean> {
    const args = Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
    const k = this.keys;
    const [written] = await Promise.all([
      script(
        k.status(requestId),
        this.ttlSeconds,
        requestId,
        k.statusFinalChannel(),
        k.statusChangedChannel(),
        ...args,
      ),
      this.scripts
        .leave(
          k.textJobsWaiting(),
          k.textRequestsUnfinished(),
          k.textRequestsInFlight(),
          k.textRequestOwners(),
          k.textJobsBacklog(),
          requestId,
        )
        .catch(() => 0),
    ]);
    if (!Array.isArray(written)) return false;
    // Only the writer that turned the record final meters it and sees its webhook: once, whoever wrote it.
    const [keyId, model, url, events, batchLine] = written as (string | null)[];
    const end = jobEndOf(fields);
    if (this.usage && keyId && end)
      await this.usage.record({ jobId: requestId, keyId, model: model ?? "", end, ...used }, alongside);
    if (batchLine && this.batchLines) await this.batchLines.ended(batchLine, requestId, fields.status === "completed");
    if (url && this.onFinal) {
      const event = webhookEventOf(fields as { status: string; finishReason?: string });
      await this.onFinal.finished({
        requestId,
        url,
        keyId: keyId ?? "",
        event,
        events: parseWebhookEvents(events ?? ""),
      });
    }
    return true;
  }
}
