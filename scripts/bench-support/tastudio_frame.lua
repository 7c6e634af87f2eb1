-- The TAS editor's CPU cost per frame (scripts/bench, BENCH_ONLY=tastudio): 3000 frames of a movie opened with
-- --tastudio, run once with the editor loaded and once without; the difference of the two is the editor's.
local start = os.clock()
for _ = 1, 3000 do emu.frameadvance() end
print(string.format("cpu_ms_per_frame %.4f", (os.clock() - start) / 3000 * 1000))
emu.exit(0)
