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
