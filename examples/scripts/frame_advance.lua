-- A frame-advance coroutine script, the BizHawk/FCEUX way: the main chunk drives the game one frame
-- at a time with emu.frameadvance(). It walks the NES demo's player right, then down, reporting the
-- position (RAM $03/$04) every 15 frames, and ends the run.
--
--   retrolua run --script examples/scripts/frame_advance.lua

local function hold(buttons, frames)
  for _ = 1, frames do
    joypad.set(1, buttons)
    emu.frameadvance()
    if emu.framecount() % 15 == 0 then
      print(string.format("frame %3d  x=%3d y=%3d", emu.framecount(), memory.read_u8(0x03), memory.read_u8(0x04)))
    end
  end
end

hold({}, 5)                -- let the game initialise
hold({ right = true }, 40)
hold({ down = true }, 30)
print(string.format("done at frame %d: x=%d y=%d", emu.framecount(), memory.read_u8(0x03), memory.read_u8(0x04)))
emu.exit(0)
