/**
 * Lua scripts keep each status transition atomic and one-way: progress never decreases (a retried
 * job restarts its count), and once a record is `completed` or `error` nothing overwrites it, so a
 * late progress write or a second attempt finishing after the first cannot change the answer.
 *
 * The text queue's side follows the records (fair-turns.ts), kept by membership (so a step counted
 * twice changes nothing): the waiting set holds the ids of jobs accepted and not yet started, in the
 * order they will start, so a job's queue position is its rank; the unfinished set holds the ids of
 * requests not yet final, by acceptance time, for the sweep that finds records whose job vanished.
 * A record leaves both when it turns final, whoever writes that (worker, cancel, sweep, a failed enqueue).
 *
 * A record and the sets live in different hash slots (per request, per queue: see redis-keys.ts),
 * so each script touches one of them, and the store sends the two together. Between the two, a set
 * may briefly disagree with a record; what reads both tolerates it: a record gone or final while its
 * id is still in a set is what the lost-job sweep takes out (it leaves the sets whatever the record says).
 *
 * Every write that changes what a client sees counts the record's `rev` up by one and publishes the
 * request id on the status-changed channel (the SSE stream's event id and its wake-up). Creating a
 * record sets rev 1 and publishes nothing: no client can hold the id before the submit answers.
 * Channels are not keys (a cluster forwards a PUBLISH to every node), so they come as arguments.
 */

/** The two lines every changing write ends with: KEYS[1] is the record, `channel` and `id` name the rest. */
function changed(channel: string, id: string): string {
  return `redis.call('HINCRBY', KEYS[1], 'rev', 1)\nredis.call('PUBLISH', ${channel}, ${id})`;
}

/**
 * KEYS status key; ARGV progress, eta seconds, request id, changed channel, reply so far (optional). Returns 1 when
 * written.
 */
export const UPDATE_PROGRESS = `
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
local current = tonumber(redis.call('HGET', KEYS[1], 'progress') or '0')
if tonumber(ARGV[1]) > current then redis.call('HSET', KEYS[1], 'progress', ARGV[1]) end
redis.call('HSET', KEYS[1], 'estimatedTimeRemaining', ARGV[2])
if ARGV[5] then redis.call('HSET', KEYS[1], 'partialReply', ARGV[5]) end
${changed("ARGV[4]", "ARGV[3]")}
return 1
`;

/**
 * KEYS status; ARGV ttl, request id, final channel, changed channel, then field/value pairs.
 * Returns 0 when not written (already final, or gone); else the record's webhook URL (for the
 * writer to queue its one delivery), or 1 without one, and publishes the request id (a client
 * waiting with `Prefer: wait` is answered at once).
 */
export const FINISH = `
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
redis.call('HDEL', KEYS[1], 'progress', 'estimatedTimeRemaining', 'partialReply')
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[2])
${changed("ARGV[4]", "ARGV[2]")}
return redis.call('HGET', KEYS[1], 'webhook') or 1
`;

/**
 * KEYS status; ARGV ttl, owner, model, createdAt (ms), webhook URL ('' for none). A new record is
 * always `processing` at progress 0, so those are written here rather than sent with every submit.
 */
export const CREATE = `
redis.call('HSET', KEYS[1], 'status', 'processing', 'owner', ARGV[2], 'model', ARGV[3], 'progress', 0, 'createdAt', ARGV[4], 'rev', 1)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'webhook', ARGV[5]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
`;

/**
 * KEYS the owner's request index; ARGV ttl, createdAt (ms), request id. The index loses what was
 * accepted longer ago than the records' retention and lives as long as its newest record.
 */
export const INDEX = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (tonumber(ARGV[2]) - tonumber(ARGV[1]) * 1000))
redis.call('EXPIRE', KEYS[1], ARGV[1])
`;

/**
 * KEYS status; ARGV now (ms), request id, changed channel. Marks the first start (a retry changes
 * nothing a client sees; the store takes the id out of the waiting set beside it). A record that
 * is gone (expired, never written) is left gone: writing to it would leave a key without a TTL.
 * Returns the status, or nil for a missing record.
 */
export const MARK_STARTED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'processing' and redis.call('HSETNX', KEYS[1], 'startedAt', ARGV[1]) == 1 then
${changed("ARGV[3]", "ARGV[2]")}
end
return status
`;
