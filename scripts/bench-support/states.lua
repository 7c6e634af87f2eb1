-- Savestate round trips through Lua: state:save() + state:load() on one object (what a branching
-- bot does), and savestate.create() + load (a fresh object each time, so the GC has work too).
-- Prints "us_per_roundtrip <reuse> <create>".
for _ = 1, 60 do emu.frameadvance() end
local N = tonumber(os.getenv("ROUNDS") or "2000")
local state = savestate.create()
local t0 = os.clock()
for _ = 1, N do state:save(); state:load() end
local t1 = os.clock()
for _ = 1, N do savestate.create():load() end
local t2 = os.clock()
print(string.format("us_per_roundtrip %.3f %.3f", (t1 - t0) * 1e6 / N, (t2 - t1) * 1e6 / N))
emu.exit(0)
