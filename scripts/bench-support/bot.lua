-- A bot-like per-frame workload: read 32 bytes, set the joypad, draw two text lines.
local read_u8 = memory.read_u8
local frame = 0
event.on("frame_end", function()
  local sum = 0
  for address = 0, 31 do sum = sum + read_u8(address) end
  frame = frame + 1
  joypad.set(1, { right = frame % 2 == 0, a = sum % 3 == 0 })
end)
event.on("draw", function()
  gui.text(2, 2, "frame " .. frame)
  gui.text(2, 12, "x " .. read_u8(3))
end)
