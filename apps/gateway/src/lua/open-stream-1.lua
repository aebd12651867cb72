--[[
  Takes one place for a status stream or wait of an API key, unless the key holds its cap of entries
  still alive. Entries of a gateway that died lapse after their lifetime; each write sets the set's
  own expiry one lifetime ahead, so it outlives every entry (the last write is the latest). Expiry
  is reckoned by Redis's clock, the one clock every gateway shares: a gateway whose clock runs ahead
  would otherwise sweep away other gateways' live entries.

  Input:
    KEYS[1] the key's open-streams set (score: the entry's expiry, ms of Redis's clock)

    ARGV[1] an entry's lifetime (ms)
    ARGV[2] the entry (gateway id:serial)
    ARGV[3] the key's cap

  Output:
    1 when the place is taken, 0 at the cap
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
