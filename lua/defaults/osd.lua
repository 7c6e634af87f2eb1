-- Default on-screen display, part of Retrolua's replaceable Lua frontend: messages from
-- emu.message() (and so from the hotkeys) for a few seconds, and optionally the speed in frames per
-- second, the frame and lag counters and player 1's input. Settings in ~/.config/retrolua/osd.lua,
-- e.g. `return { fps = true, counters = true, input = true }`; replace it with
-- ~/.config/retrolua/scripts/osd.lua or turn it off with `--no-default osd`.

local settings = {
  fps = false, counters = false, input = false,
  message_frames = 180, color = "white", background = "#000000a0",
}
local user = loadfile(emu.paths().config .. "/osd.lua")
if user then
  for key, value in pairs(user()) do settings[key] = value end
end

local messages = {}
local fps, last_frames, last_seconds = 0, 0, 0
local BUTTONS = { "up", "down", "left", "right", "b", "a", "y", "x", "l", "r", "select", "start" }
local LABELS = { up = "^", down = "v", left = "<", right = ">", select = "s", start = "S" }

event.on("message", function(text)
  messages[#messages + 1] = { text = text, left = settings.message_frames }
  if #messages > 4 then table.remove(messages, 1) end
end)

local style = { surface = "hud", color = settings.color, bg = settings.background }

event.on("draw", function()
  if #messages == 0 and not (settings.fps or settings.counters or settings.input) then return end
  local _, height = gui.surface_size("hud")
  local line = 4
  if settings.fps then
    local stats = emu.stats()
    if stats.seconds - last_seconds >= 0.5 then
      fps = (stats.frames - last_frames) / (stats.seconds - last_seconds)
      last_frames, last_seconds = stats.frames, stats.seconds
    end
    gui.text(4, line, string.format("%.1f fps", fps), style)
    line = line + 10
  end
  if settings.counters then
    gui.text(4, line, string.format("frame %d  lag %d", emu.framecount(), emu.lagcount()), style)
    line = line + 10
  end
  if settings.input then
    local pad, text = joypad.get(1), {}
    for _, button in ipairs(BUTTONS) do text[#text + 1] = pad[button] and (LABELS[button] or button) or "." end
    gui.text(4, line, table.concat(text, " "), style)
  end
  local y = height - 12 * #messages - 4
  for i = #messages, 1, -1 do
    local message = messages[i]
    gui.text(4, y + (i - 1) * 12, message.text, style)
    message.left = message.left - 1
    if message.left <= 0 then table.remove(messages, i) end
  end
end)
