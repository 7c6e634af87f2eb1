-- A Mesen 1 style overlay (written for these tests) using the argument forms Mesen's bundled scripts and the
-- scripts people derived from them rely on: a memory type that is not a number (Mesen reads it as 0, the CPU),
-- the screen buffer before the first frame, pixels in the overscan rows, and state sections libretro lacks.
local function result(key, value) print("result " .. key .. "=" .. tostring(value)) end

emu.write(0x0300, 0x5A, emu.memType.cpu)  -- Mesen 1 names: this script gets Mesen 1's 0-based screen buffer
emu.write(0x0301, 0xA5, emu.memType.cpu)
-- `type` (the Lua function) as the memory type, as a widely copied object viewer passes it
result("read_with_function", emu.read(0x0300, type))
result("read16_with_string", emu.readWord(0x0300, "cpu"))
-- Mesen 1's one-argument cheat: a Game Genie code
result("cheat_one_argument", pcall(emu.addCheat, "SXIOPO"))
emu.clearCheats()

local first, polls = true, 0
emu.addEventCallback(function()
  polls = polls + 1
  if polls == 5 then
    -- Mesen2's argument order; what was just given is what getInput reports, in the same callback
    emu.setInput({ a = true }, 0)
    result("get_after_set", emu.getInput(0).a)
    result("master_clock", emu.getMasterClock() == emu.getState().masterClock)
  end
  if first then
    first = false
    local buffer = emu.getScreenBuffer()  -- inputPolled of frame 1: nothing drawn yet, Mesen gives black
    result("buffer_last", #buffer)  -- 256x240 entries numbered from 0
    result("buffer_black", buffer[0] == 0 and buffer[61439] == 0 and buffer[61440] == nil)
    local input = emu.getInput(0)
    input.left, input.right = input.right, input.left
    emu.setInput(0, input)
  end
end, emu.eventType.inputPolled)

emu.addEventCallback(function()
  local frame = emu.getState().ppu.frameCount
  if frame < 10 then return end
  -- mirror a 4x4 block of the frame, Mesen 1's way (0-based), to the right of itself; a box beside it
  local buffer = emu.getScreenBuffer()
  for y = 100, 103 do
    for x = 0, 3 do buffer[y * 256 + 200 + x] = 0xFF00FF end
  end
  emu.setScreenBuffer(buffer)
  emu.drawRectangle(10, 20, 8, 8, 0x00FF00, true, 1)
  if frame ~= 10 then return end
  result("frame_row_8", buffer[8 * 256 + 100] == (emu.getPixel(100, 8) & 0xFFFFFF))
  result("overscan_pixel", string.format("%08X", emu.getPixel(1, 1)))
  result("picture_pixel", emu.getPixel(100, 100) >> 24 == 0xFF)
  result("bottom_ok", pcall(emu.getPixel, 255, 239))
  local ok, message = pcall(emu.getPixel, 0, 240)
  result("outside", (not ok) and message:match("invalid x,y coordinates") ~= nil)
  local state = emu.getState()
  local ok_apu, apu = pcall(function() return state.apu.dmc end)
  result("apu", ok_apu and "none" or apu:match("emu%.getState: apu is not available in Retrolua %b()"))
  local ok_ctrl, ctrl = pcall(function() return state.ppu.control.largeSprites end)
  result("ppu_control", ok_ctrl and "none" or ctrl:match("ppu%.control is not available"))
  result("unknown_field", state.ppu.nosuchfield == nil)
end, emu.eventType.endFrame)
