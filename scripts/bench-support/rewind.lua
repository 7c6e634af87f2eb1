-- Rewind history for 60 s of the NES demo at every-frame granularity: memory held, cost of one push
-- (measured as the frames with pushes against the same frames without) and of one step back.
-- Prints "rewind <bytes> <push_us> <step_us>".
local ring = rewind.new{ memory_mb = 64 }
for _ = 1, 5 do emu.frameadvance() end
local N = 3600
local t0 = os.clock()
for i = 1, N do joypad.set(1, { right = i % 3 ~= 0 }); ring:push(); emu.frameadvance() end
local with_push = os.clock() - t0
t0 = os.clock()
for i = 1, N do joypad.set(1, { right = i % 3 ~= 0 }); emu.frameadvance() end
local without = os.clock() - t0
local bytes = ring:memory()
t0 = os.clock()
local steps = 0
while ring:step() do steps = steps + 1 end
print(string.format("rewind %d %.2f %.2f", bytes, (with_push - without) * 1e6 / N, (os.clock() - t0) * 1e6 / steps))
emu.exit(0)
