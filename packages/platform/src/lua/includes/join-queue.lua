--[[
  joinQueue(KEYS, ARGV): join-queue-8.lua as a function, for the scripts that run it with other
  parts on one Redis. It takes its KEYS and ARGV as join-queue-8.lua lists them (the parameters
  shadow the script's own).
]]
--- @include "job-stats"

local function joinQueue(KEYS, ARGV)
  local cap = tonumber(ARGV[4])
  if cap > 0 then
    local held = tonumber(redis.call('HGET', KEYS[5], ARGV[3]) or '0')
    if held >= cap then return {0, held, redis.call('HGET', KEYS[7], AVG_JOB_SECONDS) or ''} end
  end
  local ticket = redis.call('INCR', KEYS[1])
  local serving = tonumber(redis.call('HGET', KEYS[4], 'serving') or '0')
  local after = tonumber(redis.call('HGET', KEYS[4], ARGV[3]) or '0')
  -- A key's position may fall between turns (a high tier's weighted cost is a half); its job's priority,
  -- the turn, is whole: the first turn at or after the position.
  local position = math.min(math.max(serving + 1, after), tonumber(ARGV[5]))
  local turn = math.ceil(position)
  redis.call('HSET', KEYS[4], ARGV[3], position + tonumber(ARGV[6]), 'last:' .. ARGV[3], turn)
  if redis.call('ZADD', KEYS[2], turn * 4294967296 + ticket % 4294967296, ARGV[2]) == 1 then
    redis.call('LPUSH', KEYS[8], 1)
  end
  redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])
  if redis.call('HSETNX', KEYS[6], ARGV[2], ARGV[3]) == 1 then redis.call('HINCRBY', KEYS[5], ARGV[3], 1) end
  return {ticket, turn}
end
