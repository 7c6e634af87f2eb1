-- Benchmark for retrolua.achievements with stock lua5.4:
--   lua5.4 scripts/bench-support/achievements_bench.lua [frames] [triggers] [spread]
-- Builds `triggers` (default 1000) typical achievement triggers of 5-10
-- conditions over a fake 64 KB memory, evaluates all of them once per frame
-- for `frames` frames (default 600) while the memory changes, and prints
--   ms_per_frame X
--   ns_per_condition Y
-- `spread` picks the addresses: "set" (default) draws them from a pool of
-- 512 hot addresses, as the achievements of one game share the addresses
-- they watch; "random" draws every address from the whole 64 KB.

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
package.path = here .. "/../../lua/?.lua;" .. package.path

local ra = require("retrolua.achievements")

local FRAMES = tonumber(arg and arg[1]) or 600
local TRIGGERS = tonumber(arg and arg[2]) or 1000
local SPREAD = (arg and arg[3]) or "set"
local MEMSIZE = 0x10000

math.randomseed(20240611)
local random = math.random

-- fake memory: byte table indexed from 0, peek composes little-endian values
local bytes = {}
for i = 0, MEMSIZE - 1 do bytes[i] = random(0, 255) end
local function peek(a, n)
  if n == 1 then return bytes[a] or 0 end
  if n == 2 then return (bytes[a] or 0) | ((bytes[a + 1] or 0) << 8) end
  return (bytes[a] or 0) | ((bytes[a + 1] or 0) << 8) | ((bytes[a + 2] or 0) << 16) | ((bytes[a + 3] or 0) << 24)
end

local pool = {}
for i = 1, 512 do pool[i] = random(0, MEMSIZE - 4) end
local function addr()
  if SPREAD == "random" then return random(0, MEMSIZE - 4) end
  return pool[random(1, #pool)]
end

-- one typical condition; returns the text and how many conditions it holds
local function condition(allow_flags)
  local r = random(100)
  local a = addr()
  if r <= 30 then return string.format("0xH%04X=%d", a, random(0, 255)), 1 end
  if r <= 40 then return string.format("0xH%04X>d0xH%04X", a, a), 1 end
  if r <= 48 then return string.format("0xH%04X!=%d", a, random(0, 255)), 1 end
  if r <= 56 then return string.format("0x %04X>=%d", a, random(0, 65535)), 1 end
  if r <= 63 then return string.format("0xM%04X=1", a), 1 end
  if r <= 69 then return string.format("0xH%04X=%d.%d.", a, random(0, 255), random(2, 60)), 1 end
  if r <= 74 then return string.format("d0xH%04X=%d", a, random(0, 255)), 1 end
  if r <= 80 then return string.format("N:0xH%04X=%d_0xH%04X<%d", a, random(0, 255), addr(), random(0, 255)), 2 end
  if r <= 85 then return string.format("A:0xH%04X_0xH%04X=%d", a, addr(), random(0, 510)), 2 end
  if r <= 88 then return string.format("0xX%04X>%d", a, random(0, 0x7FFFFFFF)), 1 end
  if allow_flags and r <= 94 then return string.format("P:0xH%04X=%d", a, random(0, 255)), 1 end
  if allow_flags then return string.format("R:0xH%04X=%d", a, random(0, 255)), 1 end
  return string.format("0xL%04X=%d", a, random(0, 15)), 1
end

local triggers, total_conditions = {}, 0
local compile_start = os.clock()
for i = 1, TRIGGERS do
  local target = random(5, 10)
  local parts, n = {}, 0
  while n < target do
    local text, count = condition(n > 0 and random(100) <= 40)
    parts[#parts + 1] = text
    n = n + count
  end
  local def = table.concat(parts, "_")
  local t = assert(ra.trigger(def))
  triggers[i] = t
  total_conditions = total_conditions + n
end
local compile_ms = (os.clock() - compile_start) * 1000

-- warm up and leave the initial "waiting" state behind
for _ = 1, 5 do for i = 1, #triggers do triggers[i]:update(peek) end end

local states = {}
local start = os.clock()
for f = 1, FRAMES do
  -- the game changes some memory every frame
  for _ = 1, 64 do bytes[pool[random(1, #pool)]] = random(0, 255) end
  bytes[random(0, MEMSIZE - 1)] = f & 0xFF
  for i = 1, #triggers do
    local s = triggers[i]:update(peek)
    if f == FRAMES then states[s] = (states[s] or 0) + 1 end
  end
end
local elapsed = os.clock() - start

local ms_per_frame = elapsed * 1000 / FRAMES
local ns_per_condition = ms_per_frame * 1e6 / total_conditions
print(string.format("triggers %d conditions %d frames %d addresses %s compile_ms %.1f",
  #triggers, total_conditions, FRAMES, SPREAD, compile_ms))
local summary = {}
for s, c in pairs(states) do summary[#summary + 1] = s .. "=" .. c end
table.sort(summary)
print("last_frame_states " .. table.concat(summary, " "))
print(string.format("ms_per_frame %.4f", ms_per_frame))
print(string.format("ns_per_condition %.1f", ns_per_condition))
