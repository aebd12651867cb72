import type { RedisClient } from "@chorus/platform";

/** KEYS[1] stats hash; ARGV seconds, weight of the newest. A shared moving average, updated atomically. */
const RECORD = `
local previous = tonumber(redis.call('HGET', KEYS[1], 'avgJobSeconds'))
local next = previous and (previous + tonumber(ARGV[2]) * (tonumber(ARGV[1]) - previous)) or tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'avgJobSeconds', string.format('%.3f', next))
return 1
`;

/** How long text jobs take, averaged over all workers: the gateway's ETA for jobs still queued. */
export class JobTimeStats {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
  ) {}

  record(seconds: number): void {
    this.redis.eval(RECORD, 1, this.key, seconds, 0.2).catch(() => undefined);
  }
}
