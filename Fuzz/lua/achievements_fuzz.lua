-- Fuzzes the achievements parser (lua/retrolua/achievements): mutated condition strings, under stock lua5.4:
--   lua5.4 Fuzz/lua/achievements_fuzz.lua [SECONDS] [SEED]
-- Every ra.trigger/value/leaderboard/richpresence/format call must return a value or `nil, message`,
-- never raise, and compiled objects must update without raising. Seeds: the strings in
-- Tests/lua/achievements_test.lua. Prints the counts; exits 1 with the failing input on the first failure.

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
package.path = here .. "/../../lua/?.lua;" .. package.path
local ra = require("retrolua.achievements")

local seconds = tonumber(arg[1]) or 10
local seed = tonumber(arg[2]) or os.time()
math.randomseed(seed)

-- Seeds: every literal the unit tests hand to the parser, by kind.
local seeds = { trigger = {}, value = {}, leaderboard = {}, richpresence = {} }
local source = assert(io.open(here .. "/../../Tests/lua/achievements_test.lua")):read("a")
for kind, literal in source:gmatch('ra%.(%a+)%(%s*("[^"\n]*")') do
  local chunk = load("return " .. literal, "seed", "t", {})
  if seeds[kind] and chunk then table.insert(seeds[kind], chunk()) end
end

-- Grammar pieces the mutator splices in, so mutations reach deep into the parser.
local tokens = {
  "0x", "0xH", "0xX", "0xM", "0xN", "0xO", "0xP", "0xQ", "0xR", "0xS", "0xT", "0xL", "0xU", "0xI", "0xW",
  "0xG", "0xK", "fF", "fB", "fH", "fI", "fM", "fL", "d", "p", "b", "~", "_", "S", ".", "=", "!=", "<", "<=",
  ">", ">=", "*", "/", "&", "^", "%", "+", "-", ":", "::", "A:", "B:", "C:", "D:", "I:", "K:", "M:", "N:",
  "O:", "P:", "Q:", "R:", "T:", "Z:", "G:", "{recall}", "STA:", "CAN:", "SUB:", "VAL:", "PRO:", "$", "h",
  "Lookup:", "Format:", "Display:", "FormatType=", "\n", "@", "(", ")", "?", ",", "0", "1", "9", "65535",
  "4294967295", "4294967296", "18446744073709551615", "-1", "1e308", "nan", "0.5", "-0.0", "FRAMES",
  "SECS", "VALUE", "SCORE", "FLOAT6", "FIXED3", " ", "\0", "\255",
}

local function mutate(text)
  for _ = 1, math.random(1, 4) do
    local at = math.random(0, #text)
    local choice = math.random(1, 6)
    if choice == 1 then
      text = text:sub(1, at) .. tokens[math.random(#tokens)] .. text:sub(at + 1)
    elseif choice == 2 then
      text = text:sub(1, at) .. text:sub(at + math.random(1, 4))
    elseif choice == 3 then
      text = text:sub(1, at) .. string.char(math.random(0, 255)) .. text:sub(at + 1)
    elseif choice == 4 and #text > 0 then
      local from = math.random(1, #text)
      text = text:sub(1, at) .. text:sub(from, from + math.random(0, 12)) .. text:sub(at + 1)
    elseif choice == 5 then
      text = text:gsub("%d+", function(d) return math.random(4) == 1 and tokens[math.random(#tokens)] or d end)
    else
      text = text .. tokens[math.random(#tokens)]
    end
  end
  return #text > 4096 and text:sub(1, 4096) or text
end

local memory = {}
for i = 0, 255 do memory[i] = math.random(0, 255) end
local function peek(address, bytes)
  local value = 0
  for i = bytes - 1, 0, -1 do value = (value << 8) | (memory[(address + i) & 0xFF] or 0) end
  return value
end

local function fail(kind, input, problem)
  io.stderr:write(string.format("achievements fuzz: %s(%q) %s (seed %d)\n", kind, input, problem, seed))
  os.exit(1)
end

-- A parse that takes more than ~50M VM instructions is a hang.
local function guarded(fn, ...)
  debug.sethook(function() error("hang: instruction budget exceeded", 0) end, "", 50000000)
  local results = table.pack(pcall(fn, ...))
  debug.sethook()
  return results
end

local function check(kind, input)
  local results = guarded(ra[kind], input)
  if not results[1] then fail(kind, input, "raised: " .. tostring(results[2])) end
  local object, message = results[2], results[3]
  if object == nil then
    if type(message) ~= "string" then fail(kind, input, "returned nil without a message") end
    return false
  end
  for _ = 1, 3 do
    local updated = guarded(object.update, object, peek)
    if not updated[1] then fail(kind, input, "parsed, then :update raised: " .. tostring(updated[2])) end
  end
  return true
end

local kinds = { "trigger", "value", "leaderboard", "richpresence" }
local formats = { "VALUE", "SCORE", "FRAMES", "SECS", "MILLISECS", "MINUTES", "SECS_AS_MINS", "FLOAT1",
  "FLOAT6", "FIXED1", "FIXED3", "TENS", "HUNDREDS", "THOUSANDS", "UNSIGNED", "", "bogus" }
local numbers = { 0, 1, -1, 0xFFFFFFFF, math.maxinteger, math.mininteger, 0.5, -0.0, 1 / 0, -1 / 0, 0 / 0, 1e308 }
local calls, parsed, deadline = 0, 0, os.clock() + seconds
while os.clock() < deadline do
  for _ = 1, 100 do
    local kind = kinds[math.random(#kinds)]
    local pool = seeds[kind]
    local input = mutate(pool[math.random(#pool)] or "")
    if check(kind, input) then parsed = parsed + 1 end
    calls = calls + 1
    local value = math.random(2) == 1 and numbers[math.random(#numbers)] or math.random(math.mininteger, -1)
    local formatted = guarded(ra.format, value, formats[math.random(#formats)])
    if not formatted[1] then fail("format", tostring(value), "raised: " .. tostring(formatted[2])) end
    calls = calls + 1
  end
end
print(string.format("achievements fuzz: %d calls, %d parsed, %.0f calls/s, no failures (seed %d)", calls,
  parsed, calls / seconds, seed))
