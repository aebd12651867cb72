--[[
  indexRequest(KEYS, ARGV): index-request-1.lua as a function, for the scripts that run it with
  other parts on one Redis. It takes its KEYS and ARGV as index-request-1.lua lists them.
]]
local function indexRequest(KEYS, ARGV)
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (tonumber(ARGV[2]) - tonumber(ARGV[1]) * 1000))
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
