-- Shared helpers of the compatibility layers (lua/compat/NAME.lua): each layer is plain Lua over the
-- public API, run in the script's own state before the script (`--compat NAME` or `--script NAME:FILE`).
-- A layer starts with `local compat = require("compat.common")` and defines each function with
-- compat.definer's def(name, status, value, note), which records it in the support table, from which
-- scripts/compat-table generates the layer's page, docs/compat/LAYER.md.
local compat = {}
local warn = console.warn  -- ours, kept: layers replace `console` (BizHawk, mGBA)

-- layer -> list of { name = "memory.readbyte", status = "supported"|"approximated"|"unsupported", note = "…" }
compat.support = {}

--- Records one function's status in a layer's table (`status`: supported, approximated, unsupported).
function compat.record(layer, name, status, note)
  local list = compat.support[layer]
  if not list then
    list = {}
    compat.support[layer] = list
  end
  list[#list + 1] = { name = name, status = status, note = note }
end

local warned = {}

--- Prints `message` on stderr (and the OSD log) once per `key` for the whole run of this script.
function compat.warn_once(key, message)
  if warned[key] then return end
  warned[key] = true
  warn(message)
end

--- `source` without its comments (line and long ones; strings are kept, and what looks like a comment inside a
--- string stays): what auto mode and a layer look for names in, so a name mentioned in a comment counts for nothing.
function compat.code_only(source)
  local out, n, i, len = {}, 0, 1, #source
  while i <= len do
    local start = source:find("[-\"'%[]", i)
    if not start then break end
    local c = source:sub(start, start)
    local stop
    if c == "-" and source:sub(start + 1, start + 1) == "-" then
      local level = source:match("^%[(=*)%[", start + 2)
      if level then
        local _, close = source:find("]" .. level .. "]", start + 2, true)
        stop = close or len
      else
        stop = (source:find("\n", start, true) or len + 1) - 1
      end
      n = n + 1
      out[n] = source:sub(i, start - 1) .. " "
      i = stop + 1
    else
      if c == "[" then
        local level = source:match("^%[(=*)%[", start)
        if level then
          local _, close = source:find("]" .. level .. "]", start, true)
          stop = close or len
        else
          stop = start
        end
      elseif c == "-" then
        stop = start
      else
        -- a quoted string: up to the same quote not escaped (or the line's end)
        local j = start + 1
        while j <= len do
          local d = source:sub(j, j)
          if d == "\\" then j = j + 1 elseif d == c or d == "\n" then break end
          j = j + 1
        end
        stop = j
      end
      n = n + 1
      out[n] = source:sub(i, stop)
      i = stop + 1
    end
  end
  out[n + 1] = source:sub(i)
  return table.concat(out)
end

--- Installs `value` at a dotted path (`"memory.readbyte"`) in the globals, creating tables on the way.
function compat.define(path, value)
  local table_, key = _G, nil
  for part in path:gmatch("[^.]+") do
    if key then
      local next_ = rawget(table_, key)
      if type(next_) ~= "table" then
        next_ = {}
        rawset(table_, key, next_)
      end
      table_ = next_
    end
    key = part
  end
  rawset(table_, key, value)
end

--- The one way a layer defines its functions: `local def = compat.definer(LAYER, install)`, then
--- def(name, status, value, note) records `name` (as the layer's page shows it) in the layer's table and installs
--- `value` with install(name, value): by default compat.define, `name` being a dotted path in the globals.
--- Statuses: "supported" and "approximated" install `value` as it is (an approximation that matters warns itself);
--- "warned" records "approximated" and installs a function whose calls warn once per run ("NAME: approximated in
--- Retrolua (NOTE)") and then run `value`, if any; "unsupported" (`value` nil, `note` says why) installs a
--- function that fails naming `name` and why, never a silent no-op.
function compat.definer(layer, install)
  install = install or compat.define
  return function(name, status, value, note)
    if status == "warned" then
      status = "approximated"
      local fn, key, message = value, layer .. ":" .. name, name .. ": approximated in Retrolua (" .. note .. ")"
      value = function(...)
        compat.warn_once(key, message)
        if fn then return fn(...) end
      end
    elseif status == "unsupported" then
      value = function() error(name .. ": not available in Retrolua (" .. note .. ")", 2) end
    end
    compat.record(layer, name, status, note)
    install(name, value)
  end
end

--- 0xAARRGGBB (our gui colour) from 0…255 components; alpha defaults to opaque.
function compat.argb(r, g, b, a)
  a = a or 255
  return ((a & 0xFF) << 24) | ((r & 0xFF) << 16) | ((g & 0xFF) << 8) | (b & 0xFF)
end

-- Mesen/mGBA

--- An integer from a number argument (floats are floored, as the peers' C bindings truncate them), else an error
--- naming `fname` and the argument (blaming the caller `level` levels up: 3, the default, is the caller of the
--- function that called this).
function compat.integer(fname, n, what, v, level)
  if math.type(v) == "integer" then return v end
  if type(v) == "number" and v == v and v > -2 ^ 63 and v < 2 ^ 63 then return math.floor(v) end
  error(string.format("%s: bad argument #%d '%s' (integer expected, got %s)", fname, n, what,
    type(v) == "number" and tostring(v) or type(v)), level or 3)
end

--- Watches `size` bytes from `address` in `domain`, in event.watch's pieces of at most 4096 bytes: after a frame
--- in which some changed, calls fn(offset, new_byte) per changed byte (offset from `address`). Returns the ids.
function compat.watch_bytes(domain, address, size, fn)
  local ids, byte, math_type = {}, string.byte, math.type
  for start = 0, size - 1, 4096 do
    local length = math.min(4096, size - start)
    local ok, id = pcall(event.watch, domain, address + start, length, function(new, old)
      if math_type(new) == "integer" then
        for i = 0, length - 1 do
          local shift = 8 * i
          local b = (new >> shift) & 0xFF
          if b ~= (old >> shift) & 0xFF then fn(start + i, b) end
        end
      else
        for i = 1, length do
          local b = byte(new, i)
          if b ~= byte(old, i) then fn(start + i - 1, b) end
        end
      end
    end)
    if not ok then
      for _, registered in ipairs(ids) do event.off(registered) end
      error(id, 2)
    end
    ids[#ids + 1] = id
  end
  return ids
end

-- Lua 5.1 leftovers (FCEUX and BizHawk before 2.9 ran Lua 5.1, and most published scripts for them date from then).

-- An integer from a Lua 5.1 number (truncated, as luaL_checkinteger did); numeric strings are accepted.
local function int51(value, fname, index, what)
  if math.type(value) == "integer" then return value end
  local number = tonumber(value)
  if not number or number ~= number or number == math.huge or number == -math.huge then
    error(string.format("%s: bad argument #%d '%s' (number expected, got %s)", fname, index, what, type(value)), 3)
  end
  if number >= 0 then return math.floor(number) end
  return -math.floor(-number)
end

-- string.format: %d and friends truncate non-integral numbers as Lua 5.1 did (5.4 refuses them).
local format, floor, math_type = string.format, math.floor, math.type
local INTEGER_CONVERSIONS = { d = true, i = true, x = true, X = true, o = true, c = true, u = true }
local function format51(pattern, ...)
  local n = select("#", ...)
  local has_float = false
  for i = 1, n do
    if math_type((select(i, ...))) == "float" then
      has_float = true
      break
    end
  end
  if not has_float or type(pattern) ~= "string" then return format(pattern, ...) end
  local args = table.pack(...)
  local index = 0
  for spec in pattern:gmatch("%%[-+ #0]*%d*%.?%d*(%a?%%?)") do
    if spec ~= "%" then
      index = index + 1
      local value = args[index]
      if INTEGER_CONVERSIONS[spec] and math_type(value) == "float" and value == value
        and value > -2 ^ 63 and value < 2 ^ 63 then
        args[index] = (value >= 0 and floor(value) or -floor(-value))
      end
    end
  end
  return format(pattern, table.unpack(args, 1, n))
end

--- Installs Lua 5.1's removed globals and lenient number handling for `layer` (recorded in its table).
function compat.lua51(layer)
  local def = compat.definer(layer)
  def("unpack", "supported", table.unpack)
  def("loadstring", "supported", function(source, name) return load(source, name) end)
  def("table.getn", "supported", function(t) return #t end)
  def("table.maxn", "supported", function(t)
    local best = 0
    for k in pairs(t) do if type(k) == "number" and k > best then best = k end end
    return best
  end)
  def("table.foreach", "supported", function(t, fn)
    for k, v in pairs(t) do
      local r = fn(k, v)
      if r ~= nil then return r end
    end
  end)
  def("table.foreachi", "supported", function(t, fn)
    for i = 1, #t do
      local r = fn(i, t[i])
      if r ~= nil then return r end
    end
  end)
  def("table.setn", "supported", function() end, "a no-op, as in Lua 5.1 without LUA_COMPAT_GETN")
  def("math.mod", "supported", math.fmod)
  def("math.pow", "supported", function(x, y) return x ^ y end)
  def("math.log10", "supported", function(x) return math.log(x, 10) end)
  def("math.atan2", "supported", function(y, x) return math.atan(y, x) end)
  def("math.ldexp", "supported", function(m, e) return m * 2.0 ^ e end)
  def("math.frexp", "supported", function(x)
    if x == 0 or x ~= x or x == math.huge or x == -math.huge then return x, 0 end
    local e = floor(math.log(math.abs(x), 2)) + 1
    local m = x / 2.0 ^ e
    if math.abs(m) >= 1 then
      m, e = m / 2, e + 1
    elseif math.abs(m) < 0.5 then
      m, e = m * 2, e - 1
    end
    return m, e
  end)
  def("math.cosh", "supported", function(x) return (math.exp(x) + math.exp(-x)) / 2 end)
  def("math.sinh", "supported", function(x) return (math.exp(x) - math.exp(-x)) / 2 end)
  def("math.tanh", "supported", function(x)
    local a, b = math.exp(x), math.exp(-x)
    return (a - b) / (a + b)
  end)
  local random, randomseed = math.random, math.randomseed
  def("math.random", "supported", function(m, n)
    if m == nil then return random() end
    if n == nil then return random(int51(m, "math.random", 1, "m")) end
    return random(int51(m, "math.random", 1, "m"), int51(n, "math.random", 2, "n"))
  end, "fractional bounds are truncated as in Lua 5.1")
  def("math.randomseed", "supported", function(seed) randomseed(int51(seed or 0, "math.randomseed", 1, "seed")) end)
  def("string.gfind", "supported", string.gmatch)
  def("string.format", "supported", format51, "integer conversions truncate fractional numbers (Lua 5.1)")
  local sub, rep = string.sub, string.rep
  def("string.sub", "supported", function(s, i, j)
    if math_type(i) == "float" then i = floor(i) end
    if math_type(j) == "float" then j = floor(j) end
    return sub(s, i, j)
  end, "fractional indices truncate (Lua 5.1)")
  def("string.rep", "supported", function(s, n, separator) return rep(s, int51(n, "string.rep", 2, "n"), separator) end)
end

----------------------------------------------------------------------------------------------------------------------
-- The names that tell which emulator a script was written for: --compat auto (lua/compat/auto.lua) picks a layer by
-- them, and the error text of a script run without a layer (lua/host/console.lua) says which layer would run it.
-- Patterns are Lua patterns looked for in code; a capture, when there is one, is the name shown.
local marks = {}
compat.marks = marks

-- Names only one emulator's API has.
local strong = {
  { "fceux", { "FCEU%.", "emu%.registerbefore", "emu%.registerafter", "memory%.readbyterange", "gui%.drawbox",
               "savestate%.registersave", "taseditor%.", "memory%.registerexec", "joypad%.getimmediate",
               "zapper%.read" } },
  { "bizhawk", { "mainmemory%.", "gui%.drawBox", "gui%.drawText",
                 "gui%.pixelText", "client%.", "memorysavestate%.", "gameinfo%.", "memory%.usememorydomain",
                 "bizstring%.", "tastudio%.", "console%.writeline", "gui%.drawRectangle",
                 "gui%.drawString", "emu%.getsystemid", "forms%.newform", "console%.output",
                 "(gui%.draw%u[%w_]*)", "(event%.on%l+)" } },
  { "mesen", { "emu%.addEventCallback", "emu%.eventType", "emu%.memType", "emu%.drawRectangle", "emu%.drawString",
               "emu%.getState", "emu%.addMemoryCallback", "emu%.displayMessage", "emu%.getScreenBuffer",
               "emu%.setScreenBuffer", "emu%.memCallbackType", "emu%.readWord", "emu%.getRomInfo" } },
  { "mgba", { "callbacks:add", "console:log", "emu:read8", "emu:write8", "emu:read16", "canvas:", "console:createBuffer",
              "emu:read32", "emu:getKey", "emu:addKey", "emu:currentFrame", "(emu:[%w_]+)", "(console:[%w_]+)" } },
}
marks.strong = strong

-- Names several of those emulators share (and Retrolua's API does not have): counted only when no mark above is
-- found, so a script that uses nothing but memory.readbyte and gui.text still gets a layer (FCEUX's, whose names
-- the others mostly copied).
marks.weak = {
  { "fceux", { "memory%.readbyte", "memory%.writebyte", "memory%.readword", "memory%.getregister",
               "memory%.register", "gui%.box", "gui%.drawtext", "joypad%.read", "joypad%.write", "input%.get%(",
               "emu%.softreset", "emu%.speedmode", "savestate%.object", "gui%.register", "movie%.framecount" } },
  { "mesen", { "emu%.read%(", "emu%.write%(", "emu%.log%(", "emu%.getInput", "emu%.setInput" } },
  { "bizhawk", { "movie%.isloaded", "movie%.getheader", "movie%.getinput", "movie%.getfps",
                 "emu%.totalexecutedcycles", "emu%.yield", "emu%.getregister%(" } },
}

-- Globals only one of those emulators defines (Retrolua has none of them).
local modules = {
  FCEU = "fceux", zapper = "fceux", taseditor = "fceux", rom = "fceux", ppu = "fceux", sound = "fceux",
  mainmemory = "bizhawk", bizstring = "bizhawk", client = "bizhawk", memorysavestate = "bizhawk",
  gameinfo = "bizhawk", forms = "bizhawk", comm = "bizhawk", userdata = "bizhawk", SQL = "bizhawk",
  callbacks = "mgba", canvas = "mgba", storage = "mgba", socket = "mgba", C = "mgba",
}
local labels = { fceux = "FCEUX", bizhawk = "BizHawk", mesen = "Mesen", mgba = "mGBA" }
marks.labels = labels

--- The layer whose emulator names `name` (`"memory.readbyte"`, `"emu:read8"`, `"mainmemory"`), or nil.
function marks.layer_of(name)
  if type(name) ~= "string" then return nil end
  local call = name .. "("
  for _, list in ipairs({ strong, marks.weak }) do
    for _, entry in ipairs(list) do
      for _, pattern in ipairs(entry[2]) do
        -- the whole name, or a module's prefix ("mainmemory%.", "canvas:")
        local from, to = call:find(pattern)
        if from == 1 and (to >= #name or pattern:find("[.:]$")) then return entry[1] end
      end
    end
  end
  return modules[name:match("^[%a_][%w_]*")]
end


return compat
