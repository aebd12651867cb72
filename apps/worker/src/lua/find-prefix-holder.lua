--[[
  The live worker holding the longest of a job's conversation prefixes: the first prefix, longest
  first, whose holder's heartbeat lasts. The holder's heartbeat key is read by name (its prefix and
  the worker id): every routing key shares the hash tag {routing}, so on a Redis Cluster it sits in
  the prefixes' slot.

  Input (any number of keys: the caller passes their count first):
    KEYS[1..n] prefix keys, longest first (each holds a worker id)

    ARGV[1] heartbeat key prefix (the worker id completes it; each holds the worker's slots)

  Output:
    {worker id, its slots, the index of its prefix in KEYS} of the first live holder, or {}
]]
for i, key in ipairs(KEYS) do
  local worker = redis.call('GET', key)
  if worker then
    local slots = redis.call('GET', ARGV[1] .. worker)
    if slots then return {worker, tonumber(slots), i} end
  end
end
return {}
