--[[
  The slots of the live workers in the worker-slots hash (keys.workerSlots()): one field per worker,
  valued `<slots>:<expiry, ms since epoch>` (workerSlotsEntry in scheduler/queue-stats.ts), since hash
  fields cannot expire. `now` is in ms.
]]
local function liveSlots(slotsKey, now)
  local slots = 0
  local workers = redis.call('HGETALL', slotsKey)
  for i = 2, #workers, 2 do
    local concurrency, expires = string.match(workers[i], '^(%d+):(%d+)$')
    if concurrency and tonumber(expires) > tonumber(now) then slots = slots + tonumber(concurrency) end
  end
  return slots
end
