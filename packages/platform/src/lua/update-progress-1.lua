--[[
  A running job's progress and ETA. Progress never decreases (a retried job restarts its count),
  and a record that is no longer processing (final, or gone) is left as it is, so a late write
  cannot change an answer.

  Input:
    KEYS[1] status record

    ARGV[1] progress (0 to 1)
    ARGV[2] ETA (s)
    ARGV[3] request id
    ARGV[4] status-changed channel
    ARGV[5] the reply so far (optional)
    ARGV[6] the attempt that wrote it (with ARGV[5]): a streamed reply follows one attempt's text

  Output:
    1 when written, else 0
]]
--- @include "includes/publish-change"

if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
local current = tonumber(redis.call('HGET', KEYS[1], 'progress') or '0')
if tonumber(ARGV[1]) > current then redis.call('HSET', KEYS[1], 'progress', ARGV[1]) end
redis.call('HSET', KEYS[1], 'estimatedTimeRemaining', ARGV[2])
if ARGV[5] then redis.call('HSET', KEYS[1], 'partialReply', ARGV[5], 'partialAttempt', ARGV[6]) end
publishChange(KEYS[1], ARGV[4], ARGV[3])
return 1
