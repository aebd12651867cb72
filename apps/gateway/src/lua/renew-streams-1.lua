--[[
  Renews the entries this gateway still holds for one API key (those already gone stay gone), and
  the set's own expiry with them.

  Input:
    KEYS[1] the key's open-streams set (score: the entry's expiry, ms)

    ARGV[1] now (ms)
    ARGV[2] an entry's lifetime (ms)
    ARGV[3..] the entries this gateway holds

  Output:
    nil
]]
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], 'XX', tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
