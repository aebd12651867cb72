import { setTimeout as delay } from "node:timers/promises";
import type { ChainableCommander } from "ioredis";
import type { Logger } from "../logger/index.js";
import type { RedisClient } from "../redis/connection.js";
import { commandNameOf, defineLuaScripts } from "../redis/lua-scripts.js";
import type { RedisKeys } from "../redis/redis-keys.js";
import { fieldsOfJob, type JobAmounts, type JobEnd } from "./usage-figures.js";

/** Days a key's usage day is kept: its hash expires this long after the last count into it (docs/usage.md). */
export const USAGE_KEEP_DAYS = 400;
export const USAGE_KEEP_SECONDS = USAGE_KEEP_DAYS * 24 * 3600;
/**
 * How long a job's "metered" marker stays. Longer than any job can be told to have ended again: a
 * retry, a take-over after a lock lapses, a lost-job sweep all act within minutes to hours.
 */
export const METERED_MARKER_SECONDS = 2 * 24 * 3600;

const SCRIPT = "meter-job-2.lua";
const COMMAND = commandNameOf(SCRIPT);

/**
 * Adds once-per-job commands of the same API key (its hash tag: one Cluster slot) to a job's metering
 * batch, sent and retried with it: a budget's settlement rides with the count instead of a round trip
 * of its own.
 */
export type RidesWithMetering = (batch: ChainableCommander) => void;

/** A job that has ended, and what it used. */
export interface FinishedJob extends JobAmounts {
  /** The request id (the BullMQ job id): what makes counting it twice count it once. */
  jobId: string;
  keyId: string;
  /** Text jobs: the model; speech jobs: the speech engine's name. */
  model: string;
  end: JobEnd;
  /** When it ended (ms): its UTC day is its bucket. Default now. */
  at?: number;
}

/** `YYYY-MM-DD` of a time (ms), UTC: the day a usage figure is counted on. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Meters finished jobs into their API key's usage: per UTC day, per model, once per job id (one
 * Lua script that sets a marker and adds, so a retried, taken-over or twice-told end counts once).
 * Both keys carry the API key's hash tag: the script runs on a Redis Cluster too, and other
 * per-key scripts (a budget's settlement) can share its batch.
 */
export class UsageMeter {
  /** Told of each job counted now (not of one counted before): the worker's Prometheus totals. */
  onCounted: ((job: FinishedJob) => void) | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    defineLuaScripts(redis, new URL("../lua/", import.meta.url), { meter: SCRIPT });
  }

  /**
   * Adds the job's metering to `batch` (a pipeline or MULTI of this meter's connection) and returns
   * it: one EVALSHA, whose reply (1 counted now, 0 counted before) goes to `noteReply`.
   */
  meterIn<Batch extends ChainableCommander>(batch: Batch, job: FinishedJob): Batch {
    const args = fieldsOfJob(job.model, job.end, job).flat();
    const command = (batch as unknown as Record<string, (...a: (string | number)[]) => Batch>)[COMMAND];
    if (!command) throw new Error(`${COMMAND} is not defined on this batch's connection`);
    const day = utcDay(job.at ?? this.now());
    return command.call(
      batch,
      this.keys.usageMetered(job.keyId, job.jobId),
      this.keys.apiKeyUsage(job.keyId, day),
      METERED_MARKER_SECONDS,
      USAGE_KEEP_SECONDS,
      ...args,
    );
  }

  /** What a batch answered for `meterIn`'s command: tells `onCounted` of a job counted now. */
  noteReply(job: FinishedJob, reply: unknown): boolean {
    const counted = reply === 1;
    if (counted) this.onCounted?.(job);
    return counted;
  }

  /**
   * Meters one job in a batch of its own, retried while Redis refuses (a failover's READONLY, a
   * restart's LOADING) for about 3 s: safe, since a job is counted once. `alongside` adds other
   * commands of the same API key (its hash tag: one Cluster slot) to that batch, sent and retried
   * with it: one round trip for both, so they must be once-per-job too (a budget's settlement).
   * Never throws: a job that still could not be counted is logged and false. True when counted now.
   */
  async record(job: FinishedJob, alongside?: RidesWithMetering, attempts = 5): Promise<boolean> {
    let counted = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const batch = this.meterIn(this.redis.pipeline(), job);
        alongside?.(batch);
        const replies = await batch.exec();
        const [error, reply] = replies?.[0] ?? [new Error("metering batch discarded"), null];
        if (error) throw error;
        // Counted now, even should a command alongside fail and the batch be sent again (it then finds the marker).
        counted = this.noteReply(job, reply) || counted;
        const failed = replies?.slice(1).find(([alongsideError]) => alongsideError)?.[0];
        if (failed) throw failed;
        return counted;
      } catch (error) {
        if (attempt >= attempts) {
          const what = counted ? "could not send what rides with a usage count" : "could not count usage";
          this.logger.warn(what, { jobId: job.jobId, keyId: job.keyId, error: String(error) });
          return counted;
        }
        await delay(200 * 2 ** (attempt - 1));
      }
    }
  }
}
