--[[
  Part of a list: how a script that runs several parts on one Redis hands each part its own KEYS
  and ARGV.
]]
local function slice(list, from, count)
  local part = {}
  for i = from, from + count - 1 do part[#part + 1] = list[i] end
  return part
end
