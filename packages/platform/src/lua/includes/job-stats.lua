--[[
  The text stats hash (keys.textJobStats()): its field avgJobSeconds holds how long text jobs take,
  a moving average over every worker's jobs, in seconds with three decimals (record-job-time-1.lua
  writes it; a queued job's ETA and a refused join read it).
]]
local AVG_JOB_SECONDS = 'avgJobSeconds'
