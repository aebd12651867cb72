--[[
  finishRecord(KEYS, ARGV): finish-status-1.lua as a function, for the scripts that turn a record
  final only under a further condition. It takes its KEYS and ARGV as finish-status-1.lua lists them.
]]
--- @include "publish-change"

local function finishRecord(KEYS, ARGV)
  if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
  redis.call('HDEL', KEYS[1], 'progress', 'estimatedTimeRemaining', 'partialReply', 'partialAttempt')
  redis.call('HSET', KEYS[1], unpack(ARGV, 5))
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('PUBLISH', ARGV[3], ARGV[2])
  publishChange(KEYS[1], ARGV[4], ARGV[2])
  return redis.call('HMGET', KEYS[1], 'owner', 'model', 'webhook', 'webhookEvents', 'batch')
end
