--[[
  Takes one place for a status stream or wait of an API key, unless the key holds its cap of entries
  still alive. Entries of a gateway that died lapse after their lifetime; each write sets the set's
  own expiry one lifetime ahead, so it outlives every entry (the last write is the latest).

  Input:
    KEYS[1] the key's open-streams set (score: the entry's expiry, ms)

    ARGV[1] now (ms)
    ARGV[2] an entry's lifetime (ms)
    ARGV[3] the entry (gateway id:serial)
    ARGV[4] the key's cap

  Output:
    1 when the place is taken, 0 at the cap
]]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
