--[[
  Counts one request against an API key's limit by rate-limit-redis' rule: a new window starts at 1
  with the window's expiry, else INCR. The status-steps bench's count-in-read step (no library).

  Input:
    KEYS[1] the key's counter

    ARGV[1] the window (ms)

  Output:
    {hits in this window, ms until it ends}
]]
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then
  redis.call('SET', KEYS[1], 1, 'PX', ARGV[1])
  return {1, tonumber(ARGV[1])}
end
return {redis.call('INCR', KEYS[1]), ttl}
