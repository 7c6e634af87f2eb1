-- Shared helpers of the compatibility layers (lua/compat/NAME.lua): each layer is plain Lua over the
-- public API, run in the script's own state before the script (`--compat NAME` or `--script NAME:FILE`).
-- A layer starts with `local compat = require("compat.common")` and records what it offers in the
-- support table, from which README's "Running scripts from other emulators" table is generated.
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

--- A function that fails with a clear message naming `name` and why (never a silent no-op).
function compat.unsupported(layer, name, why)
  compat.record(layer, name, "unsupported", why)
  return function()
    error(name .. ": not available in Retrolua (" .. why .. ")", 2)
  end
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

--- 0xAARRGGBB (our gui colour) from 0…255 components; alpha defaults to opaque.
function compat.argb(r, g, b, a)
  a = a or 255
  return ((a & 0xFF) << 24) | ((r & 0xFF) << 16) | ((g & 0xFF) << 8) | (b & 0xFF)
end

-- Mesen/mGBA

--- An integer from a number argument (floats are floored, as the peers' C bindings truncate them), else an error
--- naming `fname` and the argument.
function compat.integer(fname, n, what, v)
  if math.type(v) == "integer" then return v end
  if type(v) == "number" and v == v and v > -2 ^ 63 and v < 2 ^ 63 then return math.floor(v) end
  error(string.format("%s: bad argument #%d '%s' (integer expected, got %s)", fname, n, what,
    type(v) == "number" and tostring(v) or type(v)), 3)
end

return compat
