-- A stable-retro game integration (data.json's variables, scenario.json's reward and done) run as a
-- Retrolua scenario. retrolua.integration writes `local SPEC = {...}` above this text; the rules are
-- stable-retro's, checked against its own engine by Tests/python/test_integration.py:
-- * a variable is `width` bytes at an address of the system's map, combined big- (">") or little-
--   endian ("<", "="), read as unsigned ("u"), two's complement ("i"), BCD ("d": a digit a nibble)
--   or low-nibble BCD ("n": a digit a byte); a nibble above 9 counts modulo 10; a mask applies to
--   the value read;
-- * after every frame each reward variable gives measure(value or its change since the last frame)
--   times `reward` when positive, times `penalty` when negative, in 32-bit floats; done tests
--   measure() > 0 for each variable and node, any or all of them;
-- * measure() is the value itself without `op`, or 1/0 for a comparison with `reference`; "sign"
--   gives -1, 0 or 1.
-- luacheck: globals reward done info
-- luacheck: read globals SPEC

local spec = SPEC

-- Where each variable's bytes are: a bus view of the system's addresses when the core has one,
-- else the system RAM placed at the system's RAM base (as stable-retro places it).
local function locate(address, width)
  local ram, buses = nil, {}
  for _, domain in ipairs(memory.domains()) do
    if domain.name == "system_ram" then ram = domain end
    local base = domain.name == "bus" and "0" or domain.name:match("^bus_(%x+)$")
    if base then buses[#buses + 1] = { name = domain.name, base = tonumber(base, 16), size = domain.size } end
  end
  for _, bus in ipairs(buses) do
    local offset = address - bus.base
    if offset >= 0 and offset + width <= bus.size then return bus.name, offset end
  end
  if ram then
    local offset = address - spec.rambase
    if offset >= 0 and offset + width <= ram.size then return ram.name, offset end
  end
  error(string.format("stable-retro integration: address 0x%X (%d bytes) is outside this core's memory", address, width))
end

local variables = {}
for name, variable in pairs(spec.variables) do
  local domain, offset = locate(variable.address, variable.width)
  -- The word swap is the system RAM's own; a bus view already presents the system's byte order.
  variables[name] = { domain = domain, offset = offset, width = variable.width, order = variable.order,
                      repr = variable.repr, mask = variable.mask, swap = spec.swap and domain == "system_ram" }
end

local function decode(variable)
  local raw, width, offset = 0, variable.width, variable.offset
  -- A word-swapped RAM (the 68000's, kept as little-endian 16-bit words) has logical byte o at o ~ 1.
  local first = variable.swap and offset & ~1 or offset
  local last_byte = variable.swap and (offset + width - 1) | 1 or offset + width - 1
  local bytes = memory.read_bytes(first, last_byte - first + 1, variable.domain)
  for index = 0, width - 1 do
    local at = offset + index
    if variable.swap then at = at ~ 1 end
    local byte = bytes:byte(at - first + 1)
    if variable.order == ">" then raw = raw << 8 | byte else raw = raw | byte << (8 * index) end
  end
  local value = raw
  if variable.repr == "i" then
    local sign = 1 << (8 * width - 1)
    if width < 8 and raw & sign ~= 0 then value = raw - (sign << 1) end
  elseif variable.repr == "d" or variable.repr == "n" then
    local scale, step = 1, variable.repr == "d" and 4 or 8
    value = 0
    for shift = 0, 8 * width - 1, step do
      value = value + ((raw >> shift) & 0xF) % 10 * scale
      scale = scale * 10
    end
  end
  -- A mask applies to the decoded value, as stable-retro applies it.
  if variable.mask then value = value & variable.mask end
  return value
end

-- A value written back into a variable's bytes (a script's `data.lives = 3`).
local function encode(variable, value)
  local width, raw = variable.width, math.tointeger(value) or 0
  if variable.repr == "d" or variable.repr == "n" then
    local digits, step = 0, variable.repr == "d" and 4 or 8
    for shift = 0, 8 * width - 1, step do
      digits = digits | (raw % 10) << shift
      raw = raw // 10
    end
    raw = digits
  end
  for index = 0, width - 1 do
    local shift = variable.order == ">" and 8 * (width - 1 - index) or 8 * index
    local at = variable.offset + index
    if variable.swap then at = at ~ 1 end
    memory.write_u8(at, (raw >> shift) & 0xFF, variable.domain)
  end
end

-- One reading a frame, shared by reward() and done(); `last` is the reading before it.
local current, last, sampled = {}, {}, nil

local function sample()
  local frame = emu.framecount()
  if sampled == frame then return end
  sampled = frame
  last = current
  current = {}
  for name, variable in pairs(variables) do current[name] = decode(variable) end
  for name, value in pairs(current) do if last[name] == nil then last[name] = value end end
end

local comparisons = {
  ["equal"] = function(v, r) return v == r end,
  ["negative-equal"] = function(v, r) return -v == r end,
  ["not-equal"] = function(v, r) return v ~= r end,
  ["less-than"] = function(v, r) return v < r end,
  ["greater-than"] = function(v, r) return v > r end,
  ["less-or-equal"] = function(v, r) return v <= r end,
  ["greater-or-equal"] = function(v, r) return v >= r end,
  ["nonzero"] = function(v) return v ~= 0 end,
  ["zero"] = function(v) return v == 0 end,
  ["negative"] = function(v) return v < 0 end,
  ["positive"] = function(v) return v > 0 end,
}

local function measure(rule, value, delta)
  local v = rule.delta and delta or value
  if rule.op == "sign" then return v > 0 and 1 or (v < 0 and -1 or 0) end
  local compare = comparisons[rule.op]
  if not compare then return v end
  return compare(v, rule.reference) and 1 or 0
end

local function measured(name, rule)
  if name == nil then return measure(rule, 1, 1) end  -- the time rule: one a frame
  return measure(rule, current[name], current[name] - last[name])
end

-- stable-retro adds its rewards in 32-bit floats: so does this, to give the same numbers.
local function f32(x) return (string.unpack("f", string.pack("f", x))) end

-- The integration's own Lua scripts (stable-retro's `"scripts"`), when its rules name one of their
-- functions: they see `data.NAME` (a variable's value; set, it writes the RAM, or keeps a value of
-- the script's own) and `scenario.frame` (frames since the episode began), and start afresh at each
-- reset, as stable-retro reloads them.
local scripted, frames = nil, 0

local function load_scripts()
  if #spec.scripts == 0 then return end
  local own = {}
  local data = setmetatable({}, {
    __index = function(_, name)
      local variable = variables[name]
      if variable then return decode(variable) end
      if own[name] == nil then error("data." .. tostring(name) .. ": no such variable", 2) end
      return own[name]
    end,
    __newindex = function(_, name, value)
      local variable = variables[name]
      if variable then encode(variable, value) else own[name] = value end
    end,
  })
  scripted = setmetatable({ data = data, scenario = { frame = frames } }, { __index = _G })
  for _, script in ipairs(spec.scripts) do
    local chunk, problem = load(script.text, "=" .. script.name, "t", scripted)
    if not chunk then error(problem, 0) end
    chunk()
  end
end

local function call(name)
  local fn = scripted[name]
  if type(fn) ~= "function" then error("stable-retro script: no function " .. name, 0) end
  scripted.scenario.frame = frames
  return fn()
end

local function scripted_reward()
  local value = call(spec.reward_script)
  if value == true then return 1.0 end
  return type(value) == "number" and f32(value) or 0.0
end

local function scripted_done()
  local value = call(spec.done_script)
  return value == true or (type(value) == "number" and value ~= 0)
end

local function rules_reward()
  local total = 0.0
  for _, rule in ipairs(spec.rewards) do
    local m = f32(measured(rule.variable, rule))
    if m > 0 then m = f32(m * rule.reward) elseif m < 0 then m = f32(m * rule.penalty) end
    total = f32(total + m)
  end
  return total
end

-- After every frame, reward() then done(): one step of stable-retro's scenario, whose frame count
-- goes up once both are known.
function reward()
  sample()
  if spec.reward_script then return scripted_reward() end
  return rules_reward()
end

local function node_done(node)
  local all = node.condition == "all"
  for _, rule in ipairs(node.variables) do
    local hit = measured(rule.variable, rule) > 0
    if hit and not all then return true end
    if not hit and all then return false end
  end
  for _, child in ipairs(node.nodes) do
    local hit = node_done(child)
    if hit and not all then return true end
    if not hit and all then return false end
  end
  return all
end

function done()
  sample()
  local over
  if spec.done_script then over = scripted_done() else over = node_done(spec.done) end
  frames = frames + 1
  return over
end

-- A state load (the environment's reset) starts again from there, as stable-retro's reset does:
-- changes count from the loaded state, scripts are reloaded and see one scored frame (frame 0).
event.on("state_loaded", function()
  sampled, frames = nil, 0
  sample()
  last = current
  load_scripts()
  reward()
  done()
end)

load_scripts()

-- Every variable as it is now (stable-retro's lookup_all), read afresh: a door may ask between frames.
function info()
  local values = {}
  for name, variable in pairs(variables) do values[name] = decode(variable) end
  return values
end
