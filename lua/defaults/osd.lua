-- Default on-screen display, part of Retrolua's replaceable Lua frontend: messages from
-- emu.message() (and so from the hotkeys) for a few seconds, and optionally the frame and lag
-- counters. Settings in ~/.config/retrolua/osd.lua, e.g. `return { counters = true }`; replace it
-- with ~/.config/retrolua/scripts/osd.lua or turn it off with `--no-default osd`.

local settings = { counters = false, message_frames = 180, color = "white", background = "#000000a0" }
local user = loadfile(emu.paths().config .. "/osd.lua")
if user then
  for key, value in pairs(user()) do settings[key] = value end
end

local messages = {}

event.on("message", function(text)
  messages[#messages + 1] = { text = text, left = settings.message_frames }
  if #messages > 4 then table.remove(messages, 1) end
end)

event.on("draw", function()
  local _, height = gui.surface_size("hud")
  local style = { surface = "hud", color = settings.color, bg = settings.background }
  if settings.counters then
    gui.text(4, 4, string.format("frame %d  lag %d", emu.framecount(), emu.lagcount()), style)
  end
  local y = height - 12 * #messages - 4
  for i = #messages, 1, -1 do
    local message = messages[i]
    gui.text(4, y + (i - 1) * 12, message.text, style)
    message.left = message.left - 1
    if message.left <= 0 then table.remove(messages, i) end
  end
end)
