--[[
  The shared queue's copy of a job was taken: what may it do, as the job's claim says? A claim
  `buffer:<w>` means w runs its hand-over copy (the shared copy watches it); `failed:<reason>` that
  w's copy failed and gave the job back (the claim is cleared, so the retry starts afresh); else
  (none, `handed:<w>`, `shared:<w>`) the shared copy runs here and the claim says so.

  Input:
    KEYS[1] the job's claim

    ARGV[1] this worker's id
    ARGV[2] the claim's ttl (ms)

  Output:
    {kind, detail}: {'running', owner}, {'failed', reason}, {'free', ''} (never routed),
    {'stolen', w} (taken from the worker w it waited for: its copy there is of no use) or {'again', ''}
    (run here before)
]]
local claim = redis.call('GET', KEYS[1])
if not claim then return {'free', ''} end
local kind, detail = string.match(claim, '^(%a+):(.*)$')
if kind == 'buffer' then return {'running', detail} end
if kind == 'failed' then
  redis.call('DEL', KEYS[1])
  return {'failed', detail}
end
redis.call('SET', KEYS[1], 'shared:' .. ARGV[1], 'PX', ARGV[2])
if kind == 'handed' then return {'stolen', detail} end
return {'again', ''}
