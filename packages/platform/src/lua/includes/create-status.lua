--[[
  createStatus(KEYS, ARGV): create-status-1.lua as a function, for the scripts that run it with
  other parts on one Redis. It takes its KEYS and ARGV as create-status-1.lua lists them.
]]
local function createStatus(KEYS, ARGV)
  redis.call('HSET', KEYS[1], 'status', 'processing', 'owner', ARGV[2], 'model', ARGV[3], 'progress', 0,
    'createdAt', ARGV[4], 'rev', 1)
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'webhook', ARGV[5], 'webhookEvents', ARGV[6]) end
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
