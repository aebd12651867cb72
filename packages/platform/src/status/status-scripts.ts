/**
 * Lua scripts keep each status transition atomic and one-way: progress never decreases (a retried
 * job restarts its count), and once a record is `completed` or `error` nothing overwrites it, so a
 * late progress write or a second attempt finishing after the first cannot change the answer.
 *
 * Two sorted sets follow the records, kept by membership (so a step counted twice changes nothing):
 * the waiting set holds the status keys of jobs accepted and not yet started, ordered by ticket, so
 * a job's queue position is its rank; the unfinished set holds the ids of requests not yet final,
 * by acceptance time, for the sweep that finds records whose job vanished. A record leaves both when
 * it turns final, whoever writes that (worker, cancel, sweep, a failed enqueue).
 *
 * Every write that changes what a client sees counts the record's `rev` up by one and publishes the
 * request id on the status-changed channel (the SSE stream's event id and its wake-up). Creating a
 * record sets rev 1 and publishes nothing: no client can hold the id before the submit answers.
 */

/** The two lines every changing write ends with: KEYS[1] is the record, `channel` and `id` name the rest. */
function changed(channel: string, id: string): string {
  return `redis.call('HINCRBY', KEYS[1], 'rev', 1)\nredis.call('PUBLISH', ${channel}, ${id})`;
}

/** KEYS status key, changed channel; ARGV progress, eta seconds, request id, reply so far (optional). Returns 1 when written. */
export const UPDATE_PROGRESS = `
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
local current = tonumber(redis.call('HGET', KEYS[1], 'progress') or '0')
if tonumber(ARGV[1]) > current then redis.call('HSET', KEYS[1], 'progress', ARGV[1]) end
redis.call('HSET', KEYS[1], 'estimatedTimeRemaining', ARGV[2])
if ARGV[4] then redis.call('HSET', KEYS[1], 'partialReply', ARGV[4]) end
${changed("KEYS[2]", "ARGV[3]")}
return 1
`;

/**
 * KEYS status, waiting set, unfinished set, final channel, changed channel; ARGV ttl, request id,
 * then field/value pairs. Returns 0 when not written; else the record's webhook URL (for the writer
 * to queue its one delivery), or 1 without one, and publishes the request id (a client waiting with
 * `Prefer: wait` is answered at once). A record that is already final (or gone) only leaves the sets.
 */
export const FINISH = `
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[2])
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
redis.call('HDEL', KEYS[1], 'progress', 'estimatedTimeRemaining', 'partialReply')
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('PUBLISH', KEYS[4], ARGV[2])
${changed("KEYS[5]", "ARGV[2]")}
return redis.call('HGET', KEYS[1], 'webhook') or 1
`;

/**
 * KEYS status, ticket counter, waiting set, unfinished set, the owner's request index; ARGV ttl,
 * owner, model, createdAt (ms), request id, webhook URL ('' for none). A new record is always `processing` at progress 0, so
 * those are written here rather than sent with every submit. The owner's index loses what was
 * accepted longer ago than the records' retention and lives as long as its newest record.
 */
export const CREATE = `
local ticket = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'status', 'processing', 'owner', ARGV[2], 'model', ARGV[3], 'progress', 0, 'createdAt', ARGV[4], 'rev', 1)
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'webhook', ARGV[6]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[3], ticket, KEYS[1])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[5])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. (tonumber(ARGV[4]) - tonumber(ARGV[1]) * 1000))
redis.call('EXPIRE', KEYS[5], ARGV[1])
return ticket
`;

/**
 * KEYS status, waiting set, changed channel; ARGV now (ms), request id. The job leaves the waiting
 * set on its first start (a retry removes nothing more, and changes nothing a client sees). A record
 * that is gone (expired, never written) is left gone: writing to it would leave a key without a
 * TTL. Returns the status, or nil for a missing record.
 */
export const MARK_STARTED = `
redis.call('ZREM', KEYS[2], KEYS[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'processing' and redis.call('HSETNX', KEYS[1], 'startedAt', ARGV[1]) == 1 then
${changed("KEYS[3]", "ARGV[2]")}
end
return status
`;

/**
 * KEYS status, waiting set, text stats, worker slots; ARGV now (ms). Returns the record's flat
 * field list, and for a job still waiting: jobs ahead, average job seconds, live worker slots.
 */
export const READ = `
local record = redis.call('HGETALL', KEYS[1])
local fields = {}
for i = 1, #record, 2 do fields[record[i]] = record[i + 1] end
if fields.status ~= 'processing' or fields.startedAt then return {record} end
local ahead = redis.call('ZRANK', KEYS[2], KEYS[1])
if not ahead then return {record} end
local average = redis.call('HGET', KEYS[3], 'avgJobSeconds') or ''
local slots = 0
local workers = redis.call('HGETALL', KEYS[4])
for i = 2, #workers, 2 do
  local concurrency, expires = string.match(workers[i], '^(%d+):(%d+)$')
  if concurrency and tonumber(expires) > tonumber(ARGV[1]) then slots = slots + tonumber(concurrency) end
end
return {record, ahead, average, slots}
`;
