-- The TAS editor's benchmark (scripts/bench, BENCH_ONLY=tastudio), run with `--tastudio MOVIE` on a long
-- NES movie and the editor (lua/defaults/tastudio.lua) loaded: prints one "name value" line per figure.
-- os.clock() is the process's CPU time: the run is single-threaded, so it is the time spent.
local clock = os.clock
local TEN_MINUTES = 36000

-- 1. Ten minutes of play at the default greenzone settings: its memory, and the editor's frame time on the way
--    (scripts_ms: the Lua of every script, the editor's piano roll nearly all of it).
local start = clock()
for _ = 1, TEN_MINUTES do emu.frameadvance() end
local played = clock() - start
local info = tastudio.greenzone_info()
print(string.format("greenzone_mb %.2f", info.bytes / 1048576))
print(string.format("greenzone_states %d", info.states))
print(string.format("play_fps %.0f", TEN_MINUTES / played))
print(string.format("editor_ms %.3f", emu.stats().scripts_ms))
print(string.format("movie_frames %d", tastudio.length()))

-- 2. Seek 1,000 frames back (then forward again, not timed), ten times; the worst and the mean.
local worst, total = 0, 0
for i = 1, 10 do
  local here = TEN_MINUTES - 20 * i
  assert(tastudio.seek(here))
  emu.frameadvance()
  here = tastudio.frame()
  local t0 = clock()
  assert(tastudio.seek(here - 1000))
  local took = clock() - t0
  worst, total = math.max(worst, took), total + took
  emu.frameadvance()  -- back to the emulator between runs (a script may not hold it for seconds)
end
print(string.format("seek_back_1000_ms %.2f", worst * 1000))
print(string.format("seek_back_1000_mean_ms %.2f", total / 10 * 1000))

-- 3. Auto-restore: at a frame, edit the frame 600 before it, return to where we were (the editor's way).
worst = 0
for i = 1, 5 do
  local here = TEN_MINUTES - 100 * i
  assert(tastudio.seek(here))
  emu.frameadvance()
  here = tastudio.frame()
  local t0 = clock()
  local first = tastudio.set_button(here - 600, 1, "b", not tastudio.get_button(here - 600, 1, "b"))
  assert(first and first <= here - 600)
  assert(tastudio.seek(here))
  worst = math.max(worst, clock() - t0)
  emu.frameadvance()
end
print(string.format("auto_restore_600_ms %.2f", worst * 1000))
emu.exit(0)
