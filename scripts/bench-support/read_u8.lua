-- Lua→Swift call cost: N memory.read_u8 calls against N calls of an empty Lua function (the loop
-- and call overhead Lua itself has), after one frame. Prints "ns_per_call <value>".
emu.frameadvance()
local N = 5000000
local read_u8 = memory.read_u8
local function nothing(_) return 0 end
local t0 = os.clock()
for i = 1, N do nothing(i & 0x7FF) end
local t1 = os.clock()
for i = 1, N do read_u8(i & 0x7FF) end
local t2 = os.clock()
print(string.format("ns_per_call %.1f (lua function call %.1f)", (t2 - t1) * 1e9 / N, (t1 - t0) * 1e9 / N))
emu.exit(0)
