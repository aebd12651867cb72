--[[
  Holds what one request may use of its API key's usage budgets, or refuses it: a budget refuses
  when what is used, plus what requests not yet finished hold, plus this request's most would pass
  its cap. Checked and held in one step, so requests racing on any number of gateways can never hold
  more than the cap between them. A budget whose amount here is 0 is not checked (a speech request
  is not refused for spent tokens).

  Input:
    KEYS[1] the key's budget counters of the UTC day (hash: tokens, tokensHeld, audioMs, audioMsHeld)
    KEYS[2] the key's budget counters of the UTC month (same fields)
    KEYS[3] this request's hold (hash, written here)

    ARGV[1] tokens to hold
    ARGV[2] audio ms to hold
    ARGV[3] tokens_day cap (0: none)
    ARGV[4] tokens_month cap (0: none)
    ARGV[5] audio_seconds_day cap, in ms (0: none)
    ARGV[6] audio_seconds_month cap, in ms (0: none)
    ARGV[7] the day counters' ttl (s)
    ARGV[8] the month counters' ttl (s)
    ARGV[9] the hold's ttl (s)
    ARGV[10] the day (YYYY-MM-DD), ARGV[11] the month (YYYY-MM), kept in the hold

  Output:
    held: {1, tokens left, audio ms left} after this hold, the least over the budgets that apply
          (-1 where none applies to that measure)
    refused: {0, budget, in use, budget, in use, ...} for every budget that refused
]]

local tokens = tonumber(ARGV[1])
local audio = tonumber(ARGV[2])
local budgets = {
  {'tokens_day', KEYS[1], 'tokens', 'tokensHeld', tonumber(ARGV[3]), tokens, 1},
  {'tokens_month', KEYS[2], 'tokens', 'tokensHeld', tonumber(ARGV[4]), tokens, 1},
  {'audio_seconds_day', KEYS[1], 'audioMs', 'audioMsHeld', tonumber(ARGV[5]), audio, 2},
  {'audio_seconds_month', KEYS[2], 'audioMs', 'audioMsHeld', tonumber(ARGV[6]), audio, 2},
}

local left = {-1, -1}
local refused = {0}
for _, b in ipairs(budgets) do
  local cap = b[5]
  if cap > 0 then
    local counted = redis.call('HMGET', b[2], b[3], b[4])
    local inUse = (tonumber(counted[1]) or 0) + (tonumber(counted[2]) or 0)
    local amount = b[6]
    if amount > 0 and inUse + amount > cap then
      refused[#refused + 1] = b[1]
      refused[#refused + 1] = inUse
    end
    local room = math.max(0, cap - inUse - amount)
    if left[b[7]] < 0 or room < left[b[7]] then left[b[7]] = room end
  end
end
if #refused > 1 then return refused end

for i, key in ipairs({KEYS[1], KEYS[2]}) do
  if tokens > 0 then redis.call('HINCRBY', key, 'tokensHeld', tokens) end
  if audio > 0 then redis.call('HINCRBY', key, 'audioMsHeld', audio) end
  redis.call('EXPIRE', key, ARGV[6 + i])
end
redis.call('HSET', KEYS[3], 'day', ARGV[10], 'month', ARGV[11], 'tokens', tokens, 'audioMs', audio)
redis.call('EXPIRE', KEYS[3], ARGV[9])
return {1, left[1], left[2]}
