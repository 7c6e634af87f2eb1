-- Issue 16's benchmark, our side: the same hitbox viewer as fceux_hitbox.lua written against Retrolua's API.
local read_u8, rect, text = memory.read_u8, gui.rect, gui.text
local box = { color = 0xFFFF0000, fill = 0x40FF0000 }
local white, yellow = { color = 0xFFFFFFFF, bg = 0xFF1B1269 }, { color = 0xFFFFFF00, bg = 0xFF000000 }
while true do
  local sum = 0
  for i = 0, 19 do sum = sum + read_u8(0x0020 + i) end
  for i = 0, 9 do
    local x, y = read_u8(0x0020 + i), read_u8(0x0028 + i)
    rect(x + i * 20, y + 32, 10, 10, box)
  end
  text(8, 0, "sum " .. sum, white)
  text(8, 12, "frame " .. emu.framecount(), yellow)
  emu.frameadvance()
end
