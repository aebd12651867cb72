--[[
  An attempt's outcome, for its address's circuit breaker. A success closes it (the state is
  dropped). A failure counts: the one that makes the failures in a row reach the threshold pauses
  the address, and so does a failed trial (an attempt after the pause ended).

  Input:
    KEYS[1] the key's breakers hash

    ARGV[1] address (the URL's origin)
    ARGV[2] now (ms)
    ARGV[3] '1' the attempt succeeded, '0' it failed
    ARGV[4] failures in a row that pause the address
    ARGV[5] the pause (ms)
    ARGV[6] how long the hash is kept after its last failure (ms)

  Output:
    'paused' or 'closed' when the breaker changed so, else ''
]]
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local failures, pausedUntil = 0, 0
if raw then
  local f, p = string.match(raw, '^(%d+),(%d+),')
  failures, pausedUntil = tonumber(f), tonumber(p)
end
if ARGV[3] == '1' then
  if not raw then return '' end
  redis.call('HDEL', KEYS[1], ARGV[1])
  if pausedUntil > 0 then return 'closed' end
  return ''
end
local now = tonumber(ARGV[2])
failures = failures + 1
local change = ''
if (pausedUntil == 0 and failures >= tonumber(ARGV[4])) or (pausedUntil > 0 and pausedUntil <= now) then
  pausedUntil = now + tonumber(ARGV[5])
  change = 'paused'
end
redis.call('HSET', KEYS[1], ARGV[1], failures .. ',' .. pausedUntil .. ',0')
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return change
