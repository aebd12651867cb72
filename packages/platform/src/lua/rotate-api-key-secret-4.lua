--[[
  A key's secret is replaced, its id kept: the record moves to the new secret's hash. With an overlap
  the replaced secret's key becomes a pointer to the id that Redis drops at the overlap's end; only
  the newest replaced secret overlaps (an earlier rotation's pointer is dropped at once).

  Input:
    KEYS[1] the id index (id -> secret hash)
    KEYS[2] the key's record (at its current secret's hash)
    KEYS[3] the new secret's record key
    KEYS[4] the pointer left by the previous rotation (KEYS[2] when there is none)

    ARGV[1] the key's id
    ARGV[2] the current secret's hash (the record's key, as read before)
    ARGV[3] the new secret's hash
    ARGV[4] the replaced secret's last moment (ms; 0: no overlap)

  Output:
    1 done; 0 the key changed meanwhile (rotated or gone); -1 it is revoked
]]
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then
  return 0
end
if redis.call('HGET', KEYS[2], 'revoked') == '1' then
  return -1
end
if KEYS[4] ~= KEYS[2] and redis.call('HEXISTS', KEYS[4], 'replacedBy') == 1 then
  redis.call('DEL', KEYS[4])
end
redis.call('RENAME', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if tonumber(ARGV[4]) > 0 then
  redis.call('HSET', KEYS[2], 'replacedBy', ARGV[1], 'until', ARGV[4])
  redis.call('PEXPIREAT', KEYS[2], ARGV[4])
  redis.call('HSET', KEYS[3], 'previousSecretHash', ARGV[2])
else
  redis.call('HDEL', KEYS[3], 'previousSecretHash')
end
return 1
