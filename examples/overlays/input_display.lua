-- Input display: draws player 1's controller in the bottom-left corner, pressed buttons filled.
-- Shows what the core actually saw (joypad.get), including inputs set by other scripts.
--
--   retrolua run --script examples/overlays/input_display.lua

local ON, OFF, EDGE = "#ffcc00", "#00000090", "#ffffffc0"
local SIZE = 6

-- Button layout relative to the display's top-left corner.
local LAYOUT = {
  up = { 8, 0 }, down = { 8, 16 }, left = { 0, 8 }, right = { 16, 8 },
  select = { 30, 12 }, start = { 40, 12 },
  y = { 56, 8 }, x = { 64, 0 }, b = { 64, 16 }, a = { 72, 8 },
  l = { 0, -10 }, r = { 72, -10 },
}

event.on("draw", function()
  local _, height = gui.surface_size("emu")
  local ox, oy = 6, height - 32
  local pad = joypad.get(1)
  for name, at in pairs(LAYOUT) do
    local x, y = ox + at[1], oy + at[2]
    if name == "a" or name == "b" or name == "x" or name == "y" then
      gui.circle(x + SIZE // 2, y + SIZE // 2, SIZE // 2 + 1, { color = EDGE, fill = pad[name] and ON or OFF })
    else
      gui.rect(x, y, SIZE + ((name == "l" or name == "r") and 4 or 0), SIZE, { color = EDGE, fill = pad[name] and ON or OFF })
    end
  end
end)
