--[[
  Compare-and-set of a job's claim.

  Input:
    KEYS[1] the job's claim

    ARGV[1] the claim expected
    ARGV[2] the new claim
    ARGV[3] its ttl (ms)

  Output:
    1 when the claim was the expected one and is now the new one, else 0
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
