import { AVG_JOB_SECONDS, liveSlotsLua } from "./queue-stats.js";

/**
 * Fair turns between API keys: the text queue's side of a request's life (join, start, leave) and
 * its place in line, in one module.
 *
 * Each request gets a turn when it joins: one after its key's previous request, and never earlier
 * than the turn the workers are serving now (start-time fair queueing with one unit per request).
 * The turn is the BullMQ priority of its job, and BullMQ hands out the lowest priority first, in
 * arrival order within one priority. So a key with a hundred requests waiting holds turns n+1 ..
 * n+100 while a key that sends one now gets n+1: it starts after about one request of every other
 * busy key, not after the hundred. Within one key turns only grow: its requests start in the order
 * they were accepted.
 *
 * The waiting set holds the same order (score = turn * 2^32 + ticket), so a waiting request's rank
 * there is the number of requests that will start before it, read with one ZRANK. A request that
 * arrives later with an earlier turn (a quieter key) may move in front of it: the rank says who
 * starts first as the queue stands.
 *
 * BullMQ's priorities end at 2^21 - 1, so turns are capped there (beyond it the queue is first come,
 * first served until it drains), and the count starts over when the waiting set drains after
 * turn 2^20: at one request a turn, the cap is two million requests of unbroken backlog.
 *
 * The same scripts keep each key's count of requests not yet final (the in-flight cap): a join
 * refuses a key at its cap, and whoever turns a record final takes it off the count. Membership in
 * the owners hash decides, so a step counted twice changes nothing.
 *
 * BullMQ keeps prioritized jobs in a sorted set, not in its wait list, so the backlog list holds one
 * token per waiting request (added and taken as the waiting set gains and loses an id): its LLEN is
 * what list-length autoscalers such as KEDA's redis scaler read.
 *
 * Every key here is in the text queue's hash slot (see redis-keys.ts), with BullMQ's own.
 */

/** BullMQ's highest job priority (its PRIORITY_LIMIT: a higher one is refused). */
export const LAST_TURN = 2 ** 21 - 1;
/** Past this turn the count starts over whenever no request waits. */
export const RESTART_TURNS_AFTER = 2 ** 20;

/**
 * KEYS tickets, waiting, unfinished, turns, in-flight, owners, job stats, backlog; ARGV createdAt (ms),
 * request id, key id, in-flight cap (0: none), last turn. Returns {ticket, turn}, or {0, held,
 * average job seconds} when the key already holds its cap (nothing written).
 */
export const JOIN_QUEUE = `
local cap = tonumber(ARGV[4])
if cap > 0 then
  local held = tonumber(redis.call('HGET', KEYS[5], ARGV[3]) or '0')
  if held >= cap then return {0, held, redis.call('HGET', KEYS[7], '${AVG_JOB_SECONDS}') or ''} end
end
local ticket = redis.call('INCR', KEYS[1])
local serving = tonumber(redis.call('HGET', KEYS[4], 'serving') or '0')
local latest = tonumber(redis.call('HGET', KEYS[4], ARGV[3]) or '0')
local turn = math.min(math.max(serving, latest) + 1, tonumber(ARGV[5]))
redis.call('HSET', KEYS[4], ARGV[3], turn)
if redis.call('ZADD', KEYS[2], turn * 4294967296 + ticket % 4294967296, ARGV[2]) == 1 then redis.call('LPUSH', KEYS[8], 1) end
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])
if redis.call('HSETNX', KEYS[6], ARGV[2], ARGV[3]) == 1 then redis.call('HINCRBY', KEYS[5], ARGV[3], 1) end
return {ticket, turn}
`;

/**
 * KEYS waiting, turns, backlog; ARGV request id, restart-after turn. A job that starts leaves the waiting set
 * and moves the turn being served up to its own (a retry, no longer waiting, changes nothing).
 */
export const START_TURN = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('RPOP', KEYS[3])
local turn = math.floor(tonumber(score) / 4294967296)
local serving = tonumber(redis.call('HGET', KEYS[2], 'serving') or '0')
if redis.call('ZCARD', KEYS[1]) == 0 and math.max(turn, serving) >= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[2])
elseif turn > serving then
  redis.call('HSET', KEYS[2], 'serving', turn)
end
return 1
`;

/**
 * KEYS waiting, unfinished, in-flight, owners, backlog; ARGV request id. The queue's side of a final record: the id
 * leaves it all.
 */
export const LEAVE_QUEUE = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('RPOP', KEYS[5]) end
redis.call('ZREM', KEYS[2], ARGV[1])
local owner = redis.call('HGET', KEYS[4], ARGV[1])
if owner then
  redis.call('HDEL', KEYS[4], ARGV[1])
  if redis.call('HINCRBY', KEYS[3], owner, -1) <= 0 then redis.call('HDEL', KEYS[3], owner) end
end
`;

/**
 * KEYS waiting set, text stats, worker slots; ARGV now (ms), request id. A waiting job's place, read
 * beside its record: {} when the job is not waiting, else jobs ahead, average job seconds, live
 * worker slots.
 */
export const QUEUE_PLACE = `
local ahead = redis.call('ZRANK', KEYS[1], ARGV[2])
if not ahead then return {} end
local average = redis.call('HGET', KEYS[2], '${AVG_JOB_SECONDS}') or ''
${liveSlotsLua(3, 1)}
return {ahead, average, slots}
`;

/** A join: the request's ticket and turn (its job's priority), or the key's cap reached. */
export type QueueJoin =
  { joined: true; ticket: number; turn: number } | { joined: false; held: number; averageJobSeconds: number | null };

export function parseQueueJoin([first, second, third]: [number, number, string?]): QueueJoin {
  if (first === 0) return { joined: false, held: second, averageJobSeconds: third ? Number(third) : null };
  return { joined: true, ticket: first, turn: second };
}
