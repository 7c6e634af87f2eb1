-- Saving and loading a numbered state slot with a message that says how it went: the hotkeys and the menu's
-- slot page both do it, so one place words the messages.
local slot_actions = {}

function slot_actions.save(slot)
  local ok, problem = savestate.save(slot)
  emu.message(ok and ("saved slot " .. slot) or problem)
end

function slot_actions.load(slot)
  local ok, problem = savestate.load(slot)
  emu.message(ok and ("loaded slot " .. slot) or problem)
end

return slot_actions
