--[[
  Stores one file of an API key's (OpenAI's Files API), unless the key already holds its cap of
  files: expired files leave the key's set first, so only live ones count. The metadata and the
  bytes expire with the file; the set lives as long as its longest-lived file.

  Input:
    KEYS[1] the key's files (sorted set: file id -> expiry, ms)
    KEYS[2] the file's metadata (hash)
    KEYS[3] the file's bytes (string)

    ARGV[1] now (ms)
    ARGV[2] the cap of files per key
    ARGV[3] file id
    ARGV[4] expiry (ms since epoch)
    ARGV[5] the bytes
    ARGV[6..] metadata: field, value, field, value...

  Output:
    1 when stored, 0 when the key holds its cap (nothing written)
]]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
local expiry = tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], expiry, ARGV[3])
redis.call('SET', KEYS[3], ARGV[5], 'PXAT', expiry)
redis.call('HSET', KEYS[2], unpack(ARGV, 6))
redis.call('PEXPIREAT', KEYS[2], expiry)
if redis.call('PEXPIRETIME', KEYS[1]) < expiry then redis.call('PEXPIREAT', KEYS[1], expiry) end
return 1
