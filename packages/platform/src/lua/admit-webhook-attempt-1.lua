--[[
  Whether an attempt to one of a key's receiver addresses may go out (its circuit breaker): closed,
  yes; paused (open), not before the pause ends; once it has ended, one attempt goes as the trial and
  the others wait for it, for at most the trial's lease. State per address: "failures,pausedUntil,trialUntil" (ms).

  Input:
    KEYS[1] the key's breakers hash

    ARGV[1] address (the URL's origin)
    ARGV[2] now (ms)
    ARGV[3] a trial's lease (ms)

  Output:
    {'closed', 0}, {'trial', 0} or {'paused', until (ms)}
]]
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return {'closed', 0} end
local failures, pausedUntil, trialUntil = string.match(raw, '^(%d+),(%d+),(%d+)$')
pausedUntil, trialUntil = tonumber(pausedUntil), tonumber(trialUntil)
local now = tonumber(ARGV[2])
if pausedUntil == 0 then return {'closed', 0} end
if pausedUntil > now then return {'paused', pausedUntil} end
if trialUntil > now then return {'paused', trialUntil} end
redis.call('HSET', KEYS[1], ARGV[1], failures .. ',' .. pausedUntil .. ',' .. (now + tonumber(ARGV[3])))
return {'trial', 0}
