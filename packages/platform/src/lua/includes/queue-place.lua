--[[
  queuePlace(KEYS, ARGV): queue-place-3.lua as a function, for the status read that runs it beside
  the record on one Redis. It takes its KEYS and ARGV as queue-place-3.lua lists them.
]]
--- @include "job-stats"
--- @include "live-slots"

local function queuePlace(KEYS, ARGV)
  local ahead = redis.call('ZRANK', KEYS[1], ARGV[2])
  if not ahead then return {} end
  local average = redis.call('HGET', KEYS[2], AVG_JOB_SECONDS) or ''
  return {ahead, average, liveSlots(KEYS[3], ARGV[1])}
end
