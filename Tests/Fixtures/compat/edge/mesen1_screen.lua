-- Mesen 1 style (NES): debug reads by emu.memType.cpuDebug and a 0-based screen buffer loop. (Ported from a Mesen2
-- version that read emu.memType.nesMemory: this comment names Mesen2's enum, the code does not.)
local frames = 0
emu.addEventCallback(function()
  frames = frames + 1
  local buffer = emu.getScreenBuffer()
  -- paint an 8x8 block at (200, 100), Mesen 1's 0-based index = y * 256 + x
  for y = 100, 107 do
    for x = 200, 207 do buffer[y * 256 + x] = 0xFF00FF end
  end
  emu.setScreenBuffer(buffer)
  if frames == 3 then
    emu.log("mesen1: first=" .. tostring(buffer[0] ~= nil) .. " past_end=" .. tostring(buffer[256 * 240] == nil)
      .. " ram=" .. emu.read(0x10, emu.memType.cpuDebug))
  end
end, emu.eventType.endFrame)
