-- Input for the movie benchmarks: 6000 frames of varied d-pad and button presses.
for i = 1, 6000 do
  joypad.set(1, { right = i % 3 == 0, left = i % 11 == 0, down = i % 5 < 2, up = i % 13 == 0, a = i % 7 == 0, b = i % 17 < 3 })
  emu.frameadvance()
end
