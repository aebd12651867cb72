--[[
  Adds one finished job to its API key's usage, once: the first call for a job id sets its marker
  and adds the amounts; any later call for the same id (a retry, a take-over, a repeated delivery of
  its end) finds the marker and adds nothing. Both keys carry the API key's hash tag.

  Input:
    KEYS[1] the job's metered marker
    KEYS[2] the key's usage hash of the UTC day the job finished

    ARGV[1] marker expiry (s)
    ARGV[2] usage hash expiry (s)
    ARGV[3..] field, amount, field, amount... (whole numbers)

  Output:
    1 when counted now, 0 when it had been already
]]

if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
for i = 3, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1
