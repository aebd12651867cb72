--[[
  A key's webhook signing secret is replaced. With an overlap, the secret it replaces (for a key that
  had none of its own: the deployment's WEBHOOK_SECRET, named by a marker) keeps signing beside it
  until then; a rotation ends the overlap of an earlier one.

  Input:
    KEYS[1] the key's webhook secrets hash
    KEYS[2] the key's record

    ARGV[1] the new secret
    ARGV[2] the replaced secret's last moment (ms; 0: no overlap)
    ARGV[3] the marker that names the deployment's secret

  Output:
    1
]]
local replaced = redis.call('HGET', KEYS[1], 'current') or ARGV[3]
redis.call('HSET', KEYS[1], 'current', ARGV[1])
if tonumber(ARGV[2]) > 0 then
  redis.call('HSET', KEYS[1], 'previous', replaced, 'previousUntil', ARGV[2])
else
  redis.call('HDEL', KEYS[1], 'previous', 'previousUntil')
end
redis.call('HSET', KEYS[2], 'webhookSecret', 'own')
return 1
