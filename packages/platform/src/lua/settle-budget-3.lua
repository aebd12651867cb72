--[[
  A finished request settles with its API key's usage budgets, once: what it held is given back
  and what it really used is added, in the buckets it was admitted in. The hold then becomes a
  marker (`settled`), so a second settle of the same request (a retry, a repeated delivery, the
  sweep) changes nothing. A request admitted without a hold settles too (its use counts against
  budgets set later in the period), and leaves the same marker.

  Input:
    KEYS[1] the key's budget counters of the request's UTC day
    KEYS[2] the key's budget counters of its UTC month
    KEYS[3] the request's hold (absent where none was taken)

    ARGV[1] tokens used
    ARGV[2] audio ms used
    ARGV[3] the day counters' ttl (s)
    ARGV[4] the month counters' ttl (s)
    ARGV[5] the settled marker's ttl (s)

  Output:
    1 when settled now, 0 when it had been already
]]

if redis.call('HEXISTS', KEYS[3], 'settled') == 1 then return 0 end
local held = redis.call('HMGET', KEYS[3], 'tokens', 'audioMs')
local moves = {
  {'tokens', 'tokensHeld', tonumber(held[1]) or 0, tonumber(ARGV[1])},
  {'audioMs', 'audioMsHeld', tonumber(held[2]) or 0, tonumber(ARGV[2])},
}

for i, key in ipairs({KEYS[1], KEYS[2]}) do
  local changed = false
  for _, m in ipairs(moves) do
    if m[3] > 0 then
      -- Never below 0: counters that expired meanwhile are not owed anything.
      if redis.call('HINCRBY', key, m[2], -m[3]) < 0 then redis.call('HSET', key, m[2], 0) end
      changed = true
    end
    if m[4] > 0 then
      redis.call('HINCRBY', key, m[1], m[4])
      changed = true
    end
  end
  if changed then redis.call('EXPIRE', key, ARGV[2 + i]) end
end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'settled', 1)
redis.call('EXPIRE', KEYS[3], ARGV[5])
return 1
