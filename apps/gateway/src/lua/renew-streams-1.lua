--[[
  Renews the entries this gateway holds for one API key, by Redis's clock, and the set's own expiry
  with them. An entry that lapsed meanwhile (Redis was out of reach for longer than a lifetime, or
  the set expired) is put back: its stream is still open, so it counts against the key's cap again,
  even if that puts the key over its cap for a while (its next opens are refused until it is under).
  The gateway forgets an entry before its release's ZREM, so a released entry is not renewed.

  Input:
    KEYS[1] the key's open-streams set (score: the entry's expiry, ms of Redis's clock)

    ARGV[1] an entry's lifetime (ms)
    ARGV[2..] the entries this gateway holds

  Output:
    how many entries were put back (they had lapsed)
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local restored = 0
for i = 2, #ARGV do
  local expiry = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i]))
  if expiry == nil or expiry <= now then restored = restored + 1 end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return restored
