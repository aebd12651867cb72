--[[
  The turn of a delivery's next attempt: a retry waits behind its key's deliveries already queued,
  as a new delivery of the key would.

  Input:
    KEYS[1] webhook turns hash

    ARGV[1] key id
    ARGV[2] last turn

  Output:
    the turn
]]
--- @include "includes/webhook-turn"

return nextWebhookTurn(KEYS[1], ARGV[1], tonumber(ARGV[2]))
