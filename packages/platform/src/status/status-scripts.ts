/**
 * Lua scripts keep each status transition atomic and one-way: progress never decreases (a retried
 * job restarts its count), and once a record is `completed` or `error` nothing overwrites it, so a
 * late progress write or a second attempt finishing after the first cannot change the answer.
 */

/** KEYS[1] status key; ARGV progress, eta seconds. Returns 1 when written. */
export const UPDATE_PROGRESS = `
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
local current = tonumber(redis.call('HGET', KEYS[1], 'progress') or '0')
if tonumber(ARGV[1]) > current then redis.call('HSET', KEYS[1], 'progress', ARGV[1]) end
redis.call('HSET', KEYS[1], 'estimatedTimeRemaining', ARGV[2])
return 1
`;

/** KEYS[1] status key; ARGV ttl seconds, then field/value pairs. Returns 1 when written. */
export const FINISH = `
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
redis.call('HDEL', KEYS[1], 'progress', 'estimatedTimeRemaining')
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
`;

/**
 * Queue position without scanning the queue: every accepted job takes a ticket (KEYS[2] counter)
 * and every job leaving the queue (started for the first time, or removed) bumps KEYS[3]. Jobs ahead
 * of a waiting one = its ticket - jobs that have left - 1.
 */

/**
 * KEYS status, accepted counter; ARGV ttl, owner, model, createdAt (ms). A new record is always
 * `processing` at progress 0, so those are written here rather than sent with every submit.
 */
export const CREATE = `
local ticket = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'status', 'processing', 'owner', ARGV[2], 'model', ARGV[3], 'progress', 0, 'createdAt', ARGV[4], 'queueTicket', ticket)
redis.call('EXPIRE', KEYS[1], ARGV[1])
return ticket
`;

/**
 * KEYS status, left counter; ARGV now (ms). Counts a job as out of the queue once, on its first
 * start. A record that is gone (expired, never written) is left gone: writing to it would leave a
 * key without a TTL. Returns the status, or nil for a missing record.
 */
export const MARK_STARTED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HSETNX', KEYS[1], 'startedAt', ARGV[1]) == 1 then redis.call('INCR', KEYS[2]) end
return redis.call('HGET', KEYS[1], 'status')
`;

/**
 * KEYS status, left counter, text stats, worker slots; ARGV now (ms). Returns the record's flat
 * field list, and for a job still waiting: jobs ahead, average job seconds, live worker slots.
 */
export const READ = `
local record = redis.call('HGETALL', KEYS[1])
local fields = {}
for i = 1, #record, 2 do fields[record[i]] = record[i + 1] end
if fields.status ~= 'processing' or fields.startedAt or not fields.queueTicket then return {record} end
local left = tonumber(redis.call('GET', KEYS[2]) or '0')
local ahead = math.max(tonumber(fields.queueTicket) - left - 1, 0)
local average = redis.call('HGET', KEYS[3], 'avgJobSeconds') or ''
local slots = 0
local workers = redis.call('HGETALL', KEYS[4])
for i = 2, #workers, 2 do
  local concurrency, expires = string.match(workers[i], '^(%d+):(%d+)$')
  if concurrency and tonumber(expires) > tonumber(ARGV[1]) then slots = slots + tonumber(concurrency) end
end
return {record, ahead, average, slots}
`;
