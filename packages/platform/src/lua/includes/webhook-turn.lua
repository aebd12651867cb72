--[[
  nextWebhookTurn(turnsKey, keyId, lastTurn): the turn of a key's next webhook delivery, one after its
  previous one and never earlier than the turn being served (as the text queue's fair turns), at most
  the last turn (BullMQ's highest priority); it becomes the key's latest.
]]
local function nextWebhookTurn(turnsKey, keyId, lastTurn)
  local serving = tonumber(redis.call('HGET', turnsKey, 'serving') or '0')
  local latest = tonumber(redis.call('HGET', turnsKey, keyId) or '0')
  local turn = math.min(math.max(serving, latest) + 1, lastTurn)
  redis.call('HSET', turnsKey, keyId, turn)
  return turn
end
