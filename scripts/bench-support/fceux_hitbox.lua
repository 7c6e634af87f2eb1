-- Issue 16's benchmark, FCEUX side: a hitbox viewer written for FCEUX (run with --compat fceux): per frame
-- 20 memory.readbyte, 10 gui.box and 2 gui.text.
while true do
  local sum = 0
  for i = 0, 19 do sum = sum + memory.readbyte(0x0020 + i) end
  for i = 0, 9 do
    local x, y = memory.readbyte(0x0020 + i), memory.readbyte(0x0028 + i)
    gui.box(x + i * 20, y + 40, x + i * 20 + 9, y + 49, 0xFF000040, "red")
  end
  gui.text(8, 8, "sum " .. sum, "white")
  gui.text(8, 20, "frame " .. emu.framecount(), "yellow", "black")
  emu.frameadvance()
end
