-- In-process stepping, the comparison for Python over the socket: a step with input per frame.
for i = 1, 6000 do
  joypad.set(1, { right = i % 2 == 0 })
  emu.frameadvance()
end
