-- Fuzzes the Lua API from inside a script run by the host (scripts/fuzz lua-api SECONDS): random calls with
-- random argument types and values to every function in lua/API.md. scripts/fuzz prepends
-- `local API = { "emu.framecount", ... }` (the names from lua/API.md) and runs this under --sandbox in a
-- scratch folder. No call may crash or hang the host; a raised error must name the function it came from.
-- The last line printed is the summary scripts/fuzz reads: "api fuzz: N calls, ...".
local API = API or {} -- luacheck: ignore
local SECONDS = SECONDS or 10 -- luacheck: ignore
local SEED = SEED or 1 -- luacheck: ignore
local TRACE = TRACE -- luacheck: ignore
math.randomseed(SEED)

local skipped = { ["emu.exit"] = true } -- ends the run (called once, at the end)
local domains = {}
for _, d in ipairs(memory.domains()) do domains[#domains + 1] = type(d) == "table" and d.name or d end

local function random_string()
  local kind = math.random(10)
  if kind == 1 then return "" end
  if kind == 2 then return domains[math.random(#domains)] or "ram" end
  if kind == 3 then
    local picks = { "red", "#ff0000", "#12345678", "a", "start", "up", "x", "left", "frame_end", "draw",
      "input", "reset", "overlay", "screen", "eq", "ne", "lt", "gt", ">", "<", "==", "!=", "VALUE", "stderr",
      "out", "err", "../../outside.txt", "/etc/passwd", "sub/dir/file.state", "fuzz.rlm", "fuzz.bk2", "fuzz.fm2",
      "fuzz.cht", "fuzz.png", "00A0-0A", "SXIOPO", "7E0019:01", "\0", "nan", "1e309", "-0" }
    return picks[math.random(#picks)]
  end
  if kind == 4 then return string.rep("x", math.random(0, 1) == 0 and 4096 or 70000) end
  local out = {}
  for i = 1, math.random(1, 24) do out[i] = string.char(math.random(0, 255)) end
  return table.concat(out)
end

local integers = { 0, 1, 2, -1, 7, 8, 16, 255, 256, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000,
  0xFFFFFFFF, 0x100000000, math.maxinteger, math.mininteger, math.mininteger + 1, -0x80000000 }
local floats = { 0.5, -0.0, 1 / 0, -1 / 0, 0 / 0, 1e300, -1e300, 2 ^ 63, -(2 ^ 63), 3.0, 1e-320 }

local value
local function random_table(depth)
  local t = {}
  for _ = 1, math.random(0, 4) do
    local key = math.random(3) == 1 and math.random(-1, 4) or random_string()
    t[key] = value(depth + 1)
  end
  if math.random(4) == 1 then
    local buttons = { "a", "b", "x", "y", "l", "r", "start", "select", "up", "down", "left", "right" }
    t[buttons[math.random(#buttons)]] = math.random(2) == 1
  end
  return t
end

value = function(depth)
  depth = depth or 0
  local kind = math.random(depth > 1 and 6 or 8)
  if kind == 1 then return nil end
  if kind == 2 then return math.random(2) == 1 end
  if kind == 3 then return integers[math.random(#integers)] end
  if kind == 4 then return math.random(-300, 70000) end
  if kind == 5 then return floats[math.random(#floats)] end
  if kind == 6 then return random_string() end
  if kind == 7 then return random_table(depth) end
  return function() end
end

local objects = {}
local function resolve(name)
  local module, method = name:match("^([%w_]+):([%w_]+)$")
  if module then return method, objects[module], module end
  local table_name, field = name:match("^([%w_]+)%.([%w_]+)$")
  return field, _G[table_name], nil
end

local calls, raised, violations, shown = 0, 0, 0, {}
local function call(name)
  local field, owner, object = resolve(name)
  if owner == nil then return end
  local fn = owner[field]
  if type(fn) ~= "function" then return end
  local args = {}
  local count = math.random(0, 5)
  for i = 1, count do args[i] = value() end
  if object then table.insert(args, 1, math.random(8) == 1 and value() or owner) end
  if TRACE then console.write(name .. "\n", "err") end
  local results = table.pack(pcall(fn, table.unpack(args, 1, object and count + 1 or count)))
  calls = calls + 1
  if results[1] then
    -- Keep objects that methods can be tried on.
    local made = results[2]
    if name == "savestate.create" or name == "savestate.from_bytes" then objects.state = made or objects.state end
    if name == "rewind.new" then objects.rewind_buffer = made or objects.rewind_buffer end
    if name == "gui.load_image" then objects.image = made or objects.image end
    return
  end
  raised = raised + 1
  local message = tostring(results[2])
  local dotted = name:gsub(":", ".")
  if not message:find(name, 1, true) and not message:find(dotted, 1, true) then
    violations = violations + 1
    if not shown[name] then
      shown[name] = true
      console.write("api fuzz: " .. name .. " raised an error not naming it: " .. message:sub(1, 200) .. "\n")
    end
  end
end

objects.state = savestate.create()
objects.rewind_buffer = rewind.new()
local start = os.clock()
while os.clock() - start < SECONDS do
  for _ = 1, 50 do
    local name = API[math.random(#API)]
    if not skipped[name] then call(name) end
  end
  emu.frameadvance()
end
console.write(string.format("api fuzz: %d calls to %d functions, %d raised, %d errors not naming the function\n",
  calls, #API, raised, violations))
emu.exit(violations == 0 and 0 or 1)
