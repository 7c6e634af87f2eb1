-- BizHawk compatibility layer (`--compat bizhawk`, `--script bizhawk:FILE`): BizHawk 2.x's Lua API over ours, so a
-- script written for BizHawk runs unmodified. Each function is recorded in the support table, from which
-- docs/compat/bizhawk.md is generated.
local compat = require("compat.common")
local LAYER = "bizhawk"

-- Ours, kept before the globals are replaced (BizHawk reuses the names memory, gui, emu, joypad, console…).
local our = {
  emu = emu, memory = memory, gui = gui, joypad = joypad, input = input, event = event, console = console,
  savestate = savestate, movie = movie, cheats = cheats, tastudio = tastudio,
}
local math_type, floor, tointeger, type, tostring, error, select = math.type, math.floor, math.tointeger, type,
  tostring, error, select
local format, concat, sort = string.format, table.concat, table.sort
local warn_once = compat.warn_once

-- Errors point at the script's line: the first caller outside this file (nothing when debug is not given).
local getinfo = debug and debug.getinfo
local THIS = getinfo and getinfo(1, "S").source
local function raise(message)
  if getinfo then
    local level = 2
    while true do
      local frame = getinfo(level, "S")
      if not frame then break end
      if frame.source ~= THIS and frame.what ~= "C" then error(message, level) end
      level = level + 1
    end
  end
  error(message, 0)
end

local def = compat.definer(LAYER)

-- The layer's options, `--compat bizhawk:OPTIONS` (comma-separated): `version=X.Y[.Z]` (or a bare version) is what
-- client.getversion reports; `socket=HOST:PORT` (or `socket_ip=`, `socket_port=`) is BizHawk's --socket_ip and
-- --socket_port, the server comm.socketServer* connects to.
local _, _, _, option_text = ...
-- BizHawk 2.9.1: the newest version the published connectors accept unmodified (they gate on 2.7 to 2.9).
local options = { version = "2.9.1" }
for item in tostring(option_text or ""):gmatch("[^,]+") do
  local key, value = item:match("^%s*([%w_]+)%s*=%s*(.-)%s*$")
  if not key and item:match("^%s*%d+%.%d+[%.%d]*%s*$") then key, value = "version", item:match("[%d.]+") end
  if key == "socket" then
    local host, port = value:match("^%[?(.-)%]?:(%d+)$")
    if not host then error("--compat bizhawk: socket=" .. value .. ": HOST:PORT expected", 0) end
    options.socket_ip, options.socket_port = host, port
  elseif key == "version" or key == "socket_ip" or key == "socket_port" then
    options[key] = value
  else
    error(format("--compat bizhawk: unknown option '%s' (options: version=X.Y.Z, socket=HOST:PORT, socket_ip=, "
      .. "socket_port=)", item), 0)
  end
end
if not options.version:match("^%d+%.%d+[%.%d]*$") then
  error("--compat bizhawk: version=" .. options.version .. ": a version such as 2.9.1 expected", 0)
end
local socket_port = options.socket_port and tointeger(tonumber(options.socket_port))
if options.socket_port and not (socket_port and socket_port >= 1 and socket_port <= 65535) then
  error("--compat bizhawk: socket_port=" .. options.socket_port .. ": a port 1…65535 expected", 0)
end

local function argerror(fname, n, what, expected, got)
  raise(format("%s: bad argument #%d '%s' (%s expected, got %s)", fname, n, what, expected, type(got)))
end

--- An integer from a BizHawk number argument (BizHawk truncates doubles).
local function int(fname, n, what, v)
  if math_type(v) == "integer" then return v end
  if type(v) == "number" then
    if v == v and v > -2 ^ 62 and v < 2 ^ 62 then return floor(v) end
    raise(format("%s: bad argument #%d '%s' (finite number expected, got %s)", fname, n, what, tostring(v)))
  end
  if type(v) == "string" then
    local x = tonumber(v)
    if x then return int(fname, n, what, x) end
  end
  argerror(fname, n, what, "number", v)
end

-- Fresh module tables: BizHawk's modules are not ours, and a half-replaced table would mix semantics.
for _, name in ipairs({
  "emu", "memory", "mainmemory", "gui", "joypad", "input", "event", "console", "savestate", "movie", "client",
  "memorysavestate", "gameinfo", "userdata", "bizstring", "bit", "comm", "forms", "tastudio", "SQL", "nes", "snes",
  "genesis", "nds", "doom",
}) do
  rawset(_G, name, {})
end

----------------------------------------------------------------------------------------------------------------------
-- The system, as BizHawk names it (emu.getsystemid)
----------------------------------------------------------------------------------------------------------------------
-- The systems and their domains are one table, shared with the RAM tools' .wch reader.
local bizhawk_domains = require("retrolua.bizhawk_domains")
local info = our.emu.info()
local SYSTEM = bizhawk_domains.system(our) or (info.system and info.system ~= "" and info.system) or "NULL"

----------------------------------------------------------------------------------------------------------------------
-- Memory domains: BizHawk's names per system, each a view onto one of ours (domain, base, size)
----------------------------------------------------------------------------------------------------------------------
local ours_by_name = {}
for _, d in ipairs(our.memory.domains()) do ours_by_name[d.name] = d end
local our_default
for _, d in ipairs(our.memory.domains()) do
  if d.default then our_default = d.name end
end

local layouts = bizhawk_domains.LAYOUTS
local layout = layouts[SYSTEM] or { main = "Main RAM", { "Main RAM", our_default }, { "System Bus", "bus" } }

local views, view_names = {}, {}
local function readable(name, base)
  return pcall(our.memory.read_u8, base, name)
end
for _, spec in ipairs(layout) do
  local name, ours, base, size = spec[1], spec[2], spec[3] or 0, spec[4]
  local at
  if spec.map then
    local mapped = bizhawk_domains.MAPS[spec.map](our)
    if mapped then base, size, at = mapped.base, mapped.size, mapped.at else ours = nil end
  end
  local d = ours and ours_by_name[ours]
  if d and not views[name] and base < d.size and readable(ours, base) then
    size = size or (d.size - base)
    if not at and base + size > d.size then size = d.size - base end
    local view = { name = name, ours = ours, base = base, size = size, swap = spec.swap or at ~= nil }
    -- bytes not at a plain offset in ours: each address goes through `at` (the slow path, as swapped bytes)
    view.at = at or spec.swap and function(a) return base + (a ~ 1) end
    if spec[5] then view.split, view.base2 = spec[5][1], spec[5][2] end
    if spec.banked then
      -- a 16 KiB ROM shows twice in the window (both halves alike); content larger than 32 KiB of PRG and 8 KiB of
      -- CHR may bank its ROM: the window is then the banks mapped now
      local half = size // 2
      local ok_low, low = pcall(our.memory.read_bytes, base, half, ours)
      local ok_high, high = pcall(our.memory.read_bytes, base + half, half, ours)
      if ok_low and ok_high and low == high then view.size = half end
      if ((info.rom or {}).size or 0) > 16 + 512 + 0x8000 + 0x2000 then
        view.caveat = format("'%s' is the CPU's window 0x%X-0x%X: on this cartridge, whose ROM may be banked, the "
          .. "banks mapped now (libretro shows no other view of the ROM)", name, base, base + size - 1)
      end
    end
    -- a second half that the core does not map makes the view end at the split
    if view.split and not readable(ours, view.base2 + view.split) then view.size, view.split = view.split, nil end
    views[name] = view
    view_names[#view_names + 1] = name
  end
end
local missing = {}
for _, name in ipairs(layout.missing or {}) do missing[name] = true end
for _, spec in ipairs(layout) do
  if not views[spec[1]] then missing[spec[1]] = true end
end
-- Our own domain names are accepted too (a script adapted to Retrolua keeps working).
for name, d in pairs(ours_by_name) do
  if not views[name] then views[name] = { name = name, ours = name, base = 0, size = d.size } end
end
local main_view = views[layout.main] or views[our_default] or views[view_names[1]]
if main_view and not views[layout.main] then missing[layout.main] = nil end
local current_view = views["System Bus"] or views["M68K BUS"] or main_view

local views_by_lower = {}
for name, view in pairs(views) do views_by_lower[name:lower()] = view end
-- A view with a caveat is reached only through domain_error, which says it once.
for _, view in pairs(views_by_lower) do
  if view.caveat then views[view.name] = nil end
end

-- An unknown name: BizHawk's in another case is taken (so "System bus" works), else a clear error.
local function domain_error(fname, name)
  if type(name) ~= "string" then argerror(fname, 2, "domain", "string", name) end
  local v = views_by_lower[name:lower()]
  if v then
    if v.caveat then warn_once("bizhawk:caveat:" .. v.name, fname .. ": " .. v.caveat) end
    return v
  end
  if missing[name] then
    raise(format("%s: memory domain '%s' is not available: the core (%s) does not expose it", fname, name,
      info.core or "?"))
  end
  raise(format("%s: unknown memory domain '%s' (available: %s)", fname, name, concat(view_names, ", ")))
end

local function out_of_range(fname, addr, view)
  warn_once("bizhawk:range:" .. fname .. view.name,
    format("%s: address 0x%X is outside '%s' (size 0x%X): reads give 0 and writes are ignored, as in BizHawk", fname,
      addr, view.name, view.size))
end

-- Reader over a fixed view (mainmemory) or the current/named one (memory): the hot path, so no allocation.
local read_u8_ours, write_u8_ours = our.memory.read_u8, our.memory.write_u8

-- A view whose bytes are scattered in ours (Genesis 68K RAM: each byte at address ~ 1; SNES CARTROM: LoROM's banks):
-- each byte at v.at(address), values composed in the view's order.
local function swapped_bytes(v, addr, size)
  local at = v.at
  local b1, b2, b3, b4 = read_u8_ours(at(addr), v.ours)
  if size > 1 then b2 = read_u8_ours(at(addr + 1), v.ours) end
  if size > 2 then b3 = read_u8_ours(at(addr + 2), v.ours) end
  if size > 3 then b4 = read_u8_ours(at(addr + 3), v.ours) end
  if size == 1 then return string.char(b1) end
  if size == 2 then return string.char(b1, b2) end
  if size == 3 then return string.char(b1, b2, b3) end
  return string.char(b1, b2, b3, b4)
end
local function swapped_reader(fname, size, fmt, fixed)
  return function(addr, domain)
    local v = fixed or current_view
    if not fixed and domain ~= nil then v = views[domain] or domain_error(fname, domain) end
    if math_type(addr) ~= "integer" then addr = int(fname, 1, "address", addr) end
    if addr < 0 or addr + size > v.size then
      out_of_range(fname, addr, v)
      return 0
    end
    return (string.unpack(fmt, swapped_bytes(v, addr, size)))
  end
end
local function swapped_write(v, addr, bytes)
  for i = 1, #bytes do write_u8_ours(v.at(addr + i - 1), bytes:byte(i), v.ours) end
end

local function reader(fname, fn, size, fixed, fmt)
  if fixed and fixed.swap then return swapped_reader(fname, size, fmt, fixed) end
  if fixed then
    local v = fixed
    local ours, base, vsize, split, base2 = v.ours, v.base, v.size, v.split, v.base2
    return function(addr)
      if math_type(addr) ~= "integer" then addr = int(fname, 1, "address", addr) end
      if addr < 0 or addr + size > vsize then
        out_of_range(fname, addr, v)
        return 0
      end
      if split and addr >= split then return fn(base2 + addr, ours) end
      return fn(base + addr, ours)
    end
  end
  local slow = swapped_reader(fname, size, fmt, nil)
  return function(addr, domain)
    local v = current_view
    if domain ~= nil then v = views[domain] or domain_error(fname, domain) end
    if v.swap then return slow(addr, domain) end
    if math_type(addr) ~= "integer" then addr = int(fname, 1, "address", addr) end
    if addr < 0 or addr + size > v.size then
      out_of_range(fname, addr, v)
      return 0
    end
    if v.split and addr >= v.split then return fn(v.base2 + addr, v.ours) end
    return fn(v.base + addr, v.ours)
  end
end

local function writer(fname, fn, size, fixed, fmt)
  local mask = (1 << (8 * size)) - 1
  local ufmt = fmt and fmt:gsub("[bi]", string.upper)  -- values are masked to unsigned first
  return function(addr, value, domain)
    local v = fixed or current_view
    if not fixed and domain ~= nil then v = views[domain] or domain_error(fname, domain) end
    if math_type(addr) ~= "integer" then addr = int(fname, 1, "address", addr) end
    if math_type(value) ~= "integer" then value = int(fname, 2, "value", value) end
    if addr < 0 or addr + size > v.size then return out_of_range(fname, addr, v) end
    if v.swap then return swapped_write(v, addr, string.pack(ufmt, value & mask)) end
    if v.split and addr >= v.split then return fn(v.base2 + addr, value & mask, v.ours) end
    return fn(v.base + addr, value & mask, v.ours)
  end
end

local m = our.memory
local widths = {  -- name, our reader, our writer, size, string.pack format (for byte-swapped views)
  { "u8", m.read_u8, m.write_u8, 1, "B" }, { "s8", m.read_s8, m.write_u8, 1, "b" },
  { "u16_le", m.read_u16_le, m.write_u16_le, 2, "<I2" }, { "u16_be", m.read_u16_be, m.write_u16_be, 2, ">I2" },
  { "s16_le", m.read_s16_le, m.write_u16_le, 2, "<i2" }, { "s16_be", m.read_s16_be, m.write_u16_be, 2, ">i2" },
  { "u24_le", m.read_u24_le, m.write_u24_le, 3, "<I3" }, { "u24_be", m.read_u24_be, m.write_u24_be, 3, ">I3" },
  { "s24_le", m.read_s24_le, m.write_u24_le, 3, "<i3" }, { "s24_be", m.read_s24_be, m.write_u24_be, 3, ">i3" },
  { "u32_le", m.read_u32_le, m.write_u32_le, 4, "<I4" }, { "u32_be", m.read_u32_be, m.write_u32_be, 4, ">I4" },
  { "s32_le", m.read_s32_le, m.write_u32_le, 4, "<i4" }, { "s32_be", m.read_s32_be, m.write_u32_be, 4, ">i4" },
}

-- Resolves (view, address) for the range functions; `fixed` for mainmemory.
local function resolve(fname, addr, domain, fixed)
  local v = fixed or current_view
  if not fixed and domain ~= nil then v = views[domain] or domain_error(fname, domain) end
  return v, int(fname, 1, "address", addr)
end

local function read_inside(v, addr, length)
  if v.swap then
    local parts = {}
    for i = 0, length - 1 do parts[i + 1] = string.char(read_u8_ours(v.at(addr + i), v.ours)) end
    return concat(parts)
  end
  if v.split and addr + length > v.split then
    if addr >= v.split then return m.read_bytes(v.base2 + addr, length, v.ours) end
    return m.read_bytes(v.base + addr, v.split - addr, v.ours) .. m.read_bytes(v.base2 + v.split,
      addr + length - v.split, v.ours)
  end
  return m.read_bytes(v.base + addr, length, v.ours)
end

-- Bytes of a range; the part outside the domain reads as zeros (BizHawk's reads there give 0).
local function read_range(fname, v, addr, length)
  if length <= 0 then return "" end
  if addr >= 0 and addr + length <= v.size then return read_inside(v, addr, length) end
  if length > v.size then
    raise(format("%s: bad argument #2 'length' (%d is more than all of '%s', 0x%X bytes)", fname, length, v.name,
      v.size))
  end
  out_of_range(fname, addr, v)
  local first, last = math.max(addr, 0), math.min(addr + length, v.size)
  if first >= last then return string.rep("\0", length) end
  return string.rep("\0", first - addr) .. read_inside(v, first, last - first) .. string.rep("\0", addr + length - last)
end

local function install_memory(module, fixed)
  local p = module .. "."
  local function d(name, f) def(p .. name, "supported", f) end
  for _, w in ipairs(widths) do
    d("read_" .. w[1], reader(p .. "read_" .. w[1], w[2], w[4], fixed, w[5]))
    d("write_" .. w[1], writer(p .. "write_" .. w[1], w[3], w[4], fixed, w[5]))
  end
  d("readbyte", reader(p .. "readbyte", m.read_u8, 1, fixed, "B"))
  d("writebyte", writer(p .. "writebyte", m.write_u8, 1, fixed, "B"))
  local write_u8 = writer(p .. "write_u8", m.write_u8, 1, fixed, "B")
  -- in `memory` the domain is the last argument; mainmemory has none
  local function dom(a, b) if fixed then return nil end return a, b end
  d("readbyterange", function(addr, length, domain)
    local v, a = resolve(p .. "readbyterange", addr, dom(domain), fixed)
    local bytes = read_range(p .. "readbyterange", v, a, int(p .. "readbyterange", 2, "length", length))
    local t = {}
    for i = 1, #bytes do t[i - 1] = bytes:byte(i) end  -- zero-indexed, as BizHawk documents
    return t
  end)
  d("read_bytes_as_array", function(addr, length, domain)
    local v, a = resolve(p .. "read_bytes_as_array", addr, dom(domain), fixed)
    local bytes = read_range(p .. "read_bytes_as_array", v, a, int(p .. "read_bytes_as_array", 2, "length", length))
    local t = {}
    for i = 1, #bytes do t[i] = bytes:byte(i) end
    return t
  end)
  d("read_bytes_as_dict", function(addr, length, domain)
    local v, a = resolve(p .. "read_bytes_as_dict", addr, dom(domain), fixed)
    local bytes = read_range(p .. "read_bytes_as_dict", v, a, int(p .. "read_bytes_as_dict", 2, "length", length))
    local t = {}
    for i = 1, #bytes do t[a + i - 1] = bytes:byte(i) end
    return t
  end)
  d("read_bytes_as_binary_string", function(addr, length, domain)
    local v, a = resolve(p .. "read_bytes_as_binary_string", addr, dom(domain), fixed)
    return read_range(p .. "read_bytes_as_binary_string", v, a,
      int(p .. "read_bytes_as_binary_string", 2, "length", length))
  end)
  d("write_bytes_as_array", function(addr, bytes, domain)
    if type(bytes) ~= "table" then argerror(p .. "write_bytes_as_array", 2, "bytes", "table", bytes) end
    local a = int(p .. "write_bytes_as_array", 1, "address", addr)
    for i = 1, #bytes do write_u8(a + i - 1, bytes[i], dom(domain)) end
  end)
  d("write_bytes_as_binary_string", function(addr, bytes, domain)
    if type(bytes) ~= "string" then argerror(p .. "write_bytes_as_binary_string", 2, "bytes", "string", bytes) end
    local a = int(p .. "write_bytes_as_binary_string", 1, "address", addr)
    for i = 1, #bytes do write_u8(a + i - 1, bytes:byte(i), dom(domain)) end
  end)
  local function write_dict(fname)
    return function(map, domain)
      if type(map) ~= "table" then argerror(fname, 1, "addresses", "table", map) end
      for a, value in pairs(map) do write_u8(a, value, dom(domain)) end
    end
  end
  d("write_bytes_as_dict", write_dict(p .. "write_bytes_as_dict"))
  d("writebyterange", write_dict(p .. "writebyterange"))
  d("readfloat", function(addr, bigendian, domain)
    local v, a = resolve(p .. "readfloat", addr, dom(domain), fixed)
    if a < 0 or a + 4 > v.size then out_of_range(p .. "readfloat", a, v) return 0 end
    local bytes = read_range(p .. "readfloat", v, a, 4)
    return (string.unpack(bigendian and ">f" or "<f", bytes))
  end)
  d("writefloat", function(addr, value, bigendian, domain)
    if type(value) ~= "number" then argerror(p .. "writefloat", 2, "value", "number", value) end
    local bytes = string.pack(bigendian and ">f" or "<f", value)
    local a = int(p .. "writefloat", 1, "address", addr)
    for i = 1, 4 do write_u8(a + i - 1, bytes:byte(i), dom(domain)) end
  end)
  d("getcurrentmemorydomainsize", function() return (fixed or current_view).size end)
end

install_memory("mainmemory", main_view)
install_memory("memory", nil)
def("mainmemory.getname", "supported", function() return main_view.name end)
def("memory.getcurrentmemorydomain", "supported", function() return current_view.name end)
def("memory.getmemorydomainlist", "supported", function()
  local t = {}
  for i, name in ipairs(view_names) do t[i - 1] = name end  -- zero-indexed
  return t
end)
def("memory.getmemorydomainsize", "supported", function(name)
  local v = name ~= nil and (views[name] or type(name) == "string" and views_by_lower[name:lower()]
    and domain_error("memory.getmemorydomainsize", name)) or current_view
  return v.size
end)
def("memory.usememorydomain", "supported", function(name)
  local v = type(name) == "string" and (views[name] or views_by_lower[name:lower()] and domain_error(
    "memory.usememorydomain", name))
  if not v then
    -- BizHawk keeps the previous domain too: say so, or later reads go there unnoticed
    local why = missing[name] and format("'%s' is not available: the core (%s) does not expose it", name,
      info.core or "?") or format("no domain '%s' here", tostring(name))
    warn_once("bizhawk:use:" .. tostring(name), format("memory.usememorydomain: %s; memory.* keeps reading and "
      .. "writing '%s' (available: %s)", why, current_view.name, concat(view_names, ", ")))
    return false
  end
  current_view = v
  return true
end)
def("memory.hash_region", "approximated", function(addr, count, domain)
  local v, a = resolve("memory.hash_region", addr, domain, nil)
  local n = int("memory.hash_region", 2, "count", count)
  return (our.memory.hash(v.ours, v.base + a, n)):upper()
end, "SHA-1 of the bytes (BizHawk gives SHA-256)")


----------------------------------------------------------------------------------------------------------------------
-- Colours: 0xAARRGGBB numbers, .NET colour names (any case), "#RRGGBB", "#AARRGGBB"
----------------------------------------------------------------------------------------------------------------------
local NAMES = [[
aliceblue F0F8FF antiquewhite FAEBD7 aqua 00FFFF aquamarine 7FFFD4 azure F0FFFF beige F5F5DC bisque FFE4C4
black 000000 blanchedalmond FFEBCD blue 0000FF blueviolet 8A2BE2 brown A52A2A burlywood DEB887 cadetblue 5F9EA0
chartreuse 7FFF00 chocolate D2691E coral FF7F50 cornflowerblue 6495ED cornsilk FFF8DC crimson DC143C cyan 00FFFF
darkblue 00008B darkcyan 008B8B darkgoldenrod B8860B darkgray A9A9A9 darkgreen 006400 darkkhaki BDB76B
darkmagenta 8B008B darkolivegreen 556B2F darkorange FF8C00 darkorchid 9932CC darkred 8B0000 darksalmon E9967A
darkseagreen 8FBC8F darkslateblue 483D8B darkslategray 2F4F4F darkturquoise 00CED1 darkviolet 9400D3
deeppink FF1493 deepskyblue 00BFFF dimgray 696969 dodgerblue 1E90FF firebrick B22222 floralwhite FFFAF0
forestgreen 228B22 fuchsia FF00FF gainsboro DCDCDC ghostwhite F8F8FF gold FFD700 goldenrod DAA520 gray 808080
green 008000 greenyellow ADFF2F honeydew F0FFF0 hotpink FF69B4 indianred CD5C5C indigo 4B0082 ivory FFFFF0
khaki F0E68C lavender E6E6FA lavenderblush FFF0F5 lawngreen 7CFC00 lemonchiffon FFFACD lightblue ADD8E6
lightcoral F08080 lightcyan E0FFFF lightgoldenrodyellow FAFAD2 lightgray D3D3D3 lightgreen 90EE90 lightpink FFB6C1
lightsalmon FFA07A lightseagreen 20B2AA lightskyblue 87CEFA lightslategray 778899 lightsteelblue B0C4DE
lightyellow FFFFE0 lime 00FF00 limegreen 32CD32 linen FAF0E6 magenta FF00FF maroon 800000 mediumaquamarine 66CDAA
mediumblue 0000CD mediumorchid BA55D3 mediumpurple 9370DB mediumseagreen 3CB371 mediumslateblue 7B68EE
mediumspringgreen 00FA9A mediumturquoise 48D1CC mediumvioletred C71585 midnightblue 191970 mintcream F5FFFA
mistyrose FFE4E1 moccasin FFE4B5 navajowhite FFDEAD navy 000080 oldlace FDF5E6 olive 808000 olivedrab 6B8E23
orange FFA500 orangered FF4500 orchid DA70D6 palegoldenrod EEE8AA palegreen 98FB98 paleturquoise AFEEEE
palevioletred DB7093 papayawhip FFEFD5 peachpuff FFDAB9 peru CD853F pink FFC0CB plum DDA0DD powderblue B0E0E6
purple 800080 rebeccapurple 663399 red FF0000 rosybrown BC8F8F royalblue 4169E1 saddlebrown 8B4513 salmon FA8072
sandybrown F4A460 seagreen 2E8B57 seashell FFF5EE sienna A0522D silver C0C0C0 skyblue 87CEEB slateblue 6A5ACD
slategray 708090 snow FFFAFA springgreen 00FF7F steelblue 4682B4 tan D2B48C teal 008080 thistle D8BFD8
tomato FF6347 turquoise 40E0D0 violet EE82EE wheat F5DEB3 white FFFFFF whitesmoke F5F5F5 yellow FFFF00
yellowgreen 9ACD32
]]
local named = { transparent = 0x00FFFFFF }
for name, hex in NAMES:gmatch("(%a+) (%x+)") do named[name] = 0xFF000000 | tonumber(hex, 16) end
local parsed = {}  -- string -> colour, so a name is parsed once

local function colour(fname, n, c, default)
  if c == nil then return default end
  if math_type(c) == "integer" then return c & 0xFFFFFFFF end
  if type(c) == "number" then return int(fname, n, "color", c) & 0xFFFFFFFF end
  if type(c) == "string" then
    local v = parsed[c]
    if v then return v end
    local s = c:lower():gsub("%s", "")
    v = named[s]
    if not v then
      local hex = s:match("^#(%x+)$") or s:match("^0x(%x+)$")
      if hex and #hex == 3 then  -- "#RGB", as .NET's HTML colour parser reads it: each digit doubled
        v = 0xFF000000 | (tonumber(hex:sub(1, 1), 16) * 0x110000) | (tonumber(hex:sub(2, 2), 16) * 0x1100)
          | (tonumber(hex:sub(3, 3), 16) * 0x11)
      elseif hex and #hex == 6 then v = 0xFF000000 | tonumber(hex, 16)
      elseif hex and #hex == 8 then v = tonumber(hex, 16)
      elseif tonumber(s) then v = tointeger(tonumber(s)) and (tointeger(tonumber(s)) & 0xFFFFFFFF) end
    end
    if not v then raise(format("%s: bad argument #%d 'color' (unknown colour '%s': use 0xAARRGGBB, a .NET colour "
      .. "name, \"#RGB\" or \"#RRGGBB\")", fname, n, c)) end
    parsed[c] = v
    return v
  end
  if type(c) == "table" and c.r then  -- a Color-like table {r=, g=, b=, a=}
    return compat.argb(c.r, c.g or 0, c.b or 0, c.a)
  end
  raise(format("%s: bad argument #%d 'color' (number or string expected, got %s)", fname, n, type(c)))
end

----------------------------------------------------------------------------------------------------------------------
-- gui
----------------------------------------------------------------------------------------------------------------------
local g = our.gui
local g_rect, g_line, g_pixel, g_text, g_text_size, g_circle = g.rect, g.line, g.pixel, g.text, g.text_size, g.circle
local fg, bg, text_bg = 0xFFFFFFFF, nil, 0x80000000  -- BizHawk: white, none, half-transparent black
local surface = "emu"
local surface_names = { emucore = "emu", emu = "emu", client = "hud", native = "hud", hud = "hud" }
local function surface_of(fname, name)
  if name == nil then return surface end
  local s = surface_names[type(name) == "string" and name:lower() or name]
  if not s then raise(format("%s: unknown surface '%s' (\"emucore\" or \"client\")", fname, tostring(name))) end
  return s
end

-- One options table per drawing function, refilled on each call (the hot path allocates nothing).
local box_opt, line_opt, pixel_opt, text_opt = {}, {}, {}, {}

local function rect_corners(fname, x1, y1, x2, y2, line, back, surf)
  if x2 < x1 then x1, x2 = x2, x1 end
  if y2 < y1 then y1, y2 = y2, y1 end
  -- integer colours (the usual case) skip the parser
  box_opt.color = math_type(line) == "integer" and line & 0xFFFFFFFF or colour(fname, 5, line, fg)
  if back == nil then box_opt.fill = bg
  else box_opt.fill = math_type(back) == "integer" and back & 0xFFFFFFFF or colour(fname, 6, back, bg) end
  box_opt.surface = surf == nil and surface or surface_of(fname, surf)
  -- .NET outlines cover both corners: a box from x1 to x2 is x2 - x1 + 1 pixels wide
  g_rect(x1, y1, x2 - x1 + 1, y2 - y1 + 1, box_opt)
end

def("gui.drawBox", "supported", function(x, y, x2, y2, line, back, surf)
  local f = "gui.drawBox"
  if math_type(x) ~= "integer" then x = int(f, 1, "x", x) end
  if math_type(y) ~= "integer" then y = int(f, 2, "y", y) end
  if math_type(x2) ~= "integer" then x2 = int(f, 3, "x2", x2) end
  if math_type(y2) ~= "integer" then y2 = int(f, 4, "y2", y2) end
  rect_corners(f, x, y, x2, y2, line, back, surf)
end, "corners, both included")
def("gui.drawRectangle", "supported", function(x, y, w, h, line, back, surf)
  local f = "gui.drawRectangle"
  x, y = int(f, 1, "x", x), int(f, 2, "y", y)
  rect_corners(f, x, y, x + int(f, 3, "width", w), y + int(f, 4, "height", h), line, back, surf)
end, "x, y, width, height (outline width + 1 pixels wide, as .NET draws it)")

def("gui.drawLine", "supported", function(x1, y1, x2, y2, color, surf)
  local f = "gui.drawLine"
  line_opt.color = colour(f, 5, color, fg)
  line_opt.surface = surface_of(f, surf)
  g_line(int(f, 1, "x1", x1), int(f, 2, "y1", y1), int(f, 3, "x2", x2), int(f, 4, "y2", y2), line_opt)
end)
def("gui.drawPixel", "supported", function(x, y, color, surf)
  local f = "gui.drawPixel"
  pixel_opt.color = colour(f, 3, color, fg)
  pixel_opt.surface = surface_of(f, surf)
  g_pixel(int(f, 1, "x", x), int(f, 2, "y", y), pixel_opt)
end)
def("gui.drawAxis", "supported", function(x, y, size, color, surf)
  local f = "gui.drawAxis"
  x, y, size = int(f, 1, "x", x), int(f, 2, "y", y), int(f, 3, "size", size)
  line_opt.color = colour(f, 4, color, fg)
  line_opt.surface = surface_of(f, surf)
  g_line(x - size, y, x + size, y, line_opt)
  g_line(x, y - size, x, y + size, line_opt)
end)

-- Polygons (ellipses, pies, Béziers): outline with lines, fill by horizontal spans (even-odd).
local function polygon(fname, pts, line, back, surf, closed)
  local s = surface_of(fname, surf)
  local n = #pts // 2
  if back ~= nil and n >= 3 then
    local miny, maxy = math.huge, -math.huge
    for i = 1, n do
      local py = pts[2 * i]
      if py < miny then miny = py end
      if py > maxy then maxy = py end
    end
    line_opt.color, line_opt.surface = back, s
    for yy = floor(miny), floor(maxy) do
      local xs, cy = {}, yy + 0.5
      for i = 1, n do
        local j = i % n + 1
        local ax, ay, bx, by = pts[2 * i - 1], pts[2 * i], pts[2 * j - 1], pts[2 * j]
        if (ay <= cy and by > cy) or (by <= cy and ay > cy) then
          xs[#xs + 1] = ax + (cy - ay) * (bx - ax) / (by - ay)
        end
      end
      sort(xs)
      for k = 1, #xs - 1, 2 do
        local a, b = floor(xs[k] + 0.5), floor(xs[k + 1] - 0.5)
        if b >= a then g_line(a, yy, b, yy, line_opt) end
      end
    end
  end
  if line ~= nil then
    line_opt.color, line_opt.surface = line, s
    local last = closed and n or n - 1
    for i = 1, last do
      local j = i % n + 1
      g_line(floor(pts[2 * i - 1] + 0.5), floor(pts[2 * i] + 0.5), floor(pts[2 * j - 1] + 0.5),
        floor(pts[2 * j] + 0.5), line_opt)
    end
  end
end

local function ellipse_points(x, y, w, h, start, sweep, centre)
  local pts, rx, ry = {}, w / 2, h / 2
  local cx, cy = x + rx, y + ry
  local steps = math.max(12, floor((rx + ry) * math.abs(sweep) / 180) + 4)
  if centre then pts[1], pts[2] = cx, cy end
  for i = 0, steps do
    local a = math.rad(start + sweep * i / steps)
    pts[#pts + 1] = cx + rx * math.cos(a)
    pts[#pts + 1] = cy + ry * math.sin(a)
  end
  return pts
end

def("gui.drawEllipse", "supported", function(x, y, w, h, line, back, surf)
  local f = "gui.drawEllipse"
  x, y, w, h = int(f, 1, "x", x), int(f, 2, "y", y), int(f, 3, "width", w), int(f, 4, "height", h)
  local lc, bc = colour(f, 5, line, fg), colour(f, 6, back, bg)
  if w == h and w % 2 == 0 then
    box_opt.color, box_opt.fill, box_opt.surface = lc, bc, surface_of(f, surf)
    return g_circle(x + w // 2, y + h // 2, w // 2, box_opt)
  end
  polygon(f, ellipse_points(x, y, w, h, 0, 360), lc, bc, surf, true)
end, "x, y, width, height of the bounding box")
def("gui.drawPie", "supported", function(x, y, w, h, start, sweep, line, back, surf)
  local f = "gui.drawPie"
  x, y, w, h = int(f, 1, "x", x), int(f, 2, "y", y), int(f, 3, "width", w), int(f, 4, "height", h)
  local pts = ellipse_points(x, y, w, h, int(f, 5, "startangle", start), int(f, 6, "sweepangle", sweep), true)
  polygon(f, pts, colour(f, 7, line, fg), colour(f, 8, back, bg), surf, true)
end)
def("gui.drawPolygon", "supported", function(points, ox, oy, line, back, surf)
  local f = "gui.drawPolygon"
  if type(points) ~= "table" then argerror(f, 1, "points", "table", points) end
  ox, oy = ox and int(f, 2, "offsetX", ox) or 0, oy and int(f, 3, "offsetY", oy) or 0
  local pts = {}
  for i, p in ipairs(points) do
    if type(p) ~= "table" then argerror(f, 1, "points[" .. i .. "]", "{x, y} table", p) end
    pts[2 * i - 1] = int(f, 1, "x", p[1] or p.x) + ox
    pts[2 * i] = int(f, 1, "y", p[2] or p.y) + oy
  end
  polygon(f, pts, colour(f, 4, line, fg), colour(f, 5, back, bg), surf, true)
end)
def("gui.drawBezier", "supported", function(points, color, surf)
  local f = "gui.drawBezier"
  if type(points) ~= "table" or #points < 4 then argerror(f, 1, "points", "table of 4 points", points) end
  local c = {}
  for i = 1, 4 do
    c[i] = { int(f, 1, "x", points[i][1] or points[i].x), int(f, 1, "y", points[i][2] or points[i].y) }
  end
  local pts = {}
  for i = 0, 24 do
    local t = i / 24
    local u = 1 - t
    local a, b, cc, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
    pts[#pts + 1] = a * c[1][1] + b * c[2][1] + cc * c[3][1] + d * c[4][1]
    pts[#pts + 1] = a * c[1][2] + b * c[2][2] + cc * c[3][2] + d * c[4][2]
  end
  polygon(f, pts, colour(f, 2, color, fg), nil, surf, false)
end)

-- Text: our 6×8 font stands in for BizHawk's fonts (warned once per function).
local function text_string(fname, message)
  if type(message) == "string" then return message end
  if message == nil then argerror(fname, 3, "message", "string", message) end
  return tostring(message)
end

local function draw_text(x, y, s, fore, back, surf, halign, valign)
  if halign or valign then
    local w, h = g_text_size(s)
    local ha, va = halign and halign:lower(), valign and valign:lower()
    if ha == "center" or ha == "middle" then x = x - w // 2 elseif ha == "right" then x = x - w end
    if va == "middle" or va == "center" then y = y - h // 2 elseif va == "bottom" then y = y - h end
  end
  text_opt.color, text_opt.bg, text_opt.surface = fore, back, surf
  return g_text(x, y, s, text_opt)
end

local function drawString(x, y, message, fore, back, size, family, style, halign, valign, surf)
  local f = "gui.drawString"
  if size ~= nil or family ~= nil or style ~= nil then
    warn_once("bizhawk:font", f .. ": fonts, sizes and styles are drawn with Retrolua's 6x8 pixel font")
  end
  draw_text(int(f, 1, "x", x), int(f, 2, "y", y), text_string(f, message), colour(f, 4, fore, fg),
    colour(f, 5, back, bg), surface_of(f, surf), halign, valign)
end
def("gui.drawString", "approximated", drawString, "in Retrolua's 6x8 pixel font; alignment kept")
def("gui.drawText", "approximated", drawString, "alias of gui.drawString")
def("gui.pixelText", "approximated", function(x, y, message, fore, back, _, surf)
  local f = "gui.pixelText"
  draw_text(int(f, 1, "x", x), int(f, 2, "y", y), text_string(f, message), colour(f, 4, fore, fg),
    colour(f, 5, back, text_bg), surface_of(f, surf))
end, "in Retrolua's 6x8 pixel font (not BizHawk's gens or fceux fonts)")

local anchors = { topleft = "topleft", topright = "topright", bottomleft = "bottomleft", bottomright = "bottomright",
  ["0"] = "topleft", ["1"] = "topright", ["2"] = "bottomleft", ["3"] = "bottomright" }
-- BizHawk 1.x's form: gui.text(x, y, message, background, forecolor, anchor) — a 6th argument, or a 5th that is a
-- colour rather than an anchor; 2.x's: gui.text(x, y, message, forecolor, anchor).
local function old_text_form(n, fifth)
  if n >= 6 then return true end
  if fifth == nil then return false end
  if type(fifth) == "number" then return not (fifth >= 0 and fifth <= 3) end
  return anchors[tostring(fifth):lower()] == nil
end
def("gui.text", "approximated", function(x, y, message, fore, anchor, ...)
  local f = "gui.text"
  x, y = int(f, 1, "x", x), int(f, 2, "y", y)
  local s = text_string(f, message)
  local shadow, fc
  if old_text_form(select("#", ...) + 5, anchor) then
    shadow = colour(f, 4, fore, 0xFF000000)
    fc = colour(f, 5, anchor, 0xFFFFFFFF)
    anchor = ...
  else
    shadow, fc = 0xFF000000, colour(f, 4, fore, 0xFFFFFFFF)
  end
  if anchor ~= nil and anchor ~= "" then
    local a = anchors[tostring(anchor):lower()]
    if not a then
      -- BizHawk falls back to the top left for an anchor it does not know
      warn_once("bizhawk:anchor", f .. ": unknown anchor '" .. tostring(anchor) .. "' (topleft, topright, "
        .. "bottomleft, bottomright or 0-3): drawn from the top left")
      a = "topleft"
    end
    local w, h = g_text_size(s)
    local sw, sh = g.surface_size("emu")
    if a == "topright" or a == "bottomright" then x = sw - w - x end
    if a == "bottomleft" or a == "bottomright" then y = sh - h - y end
  end
  -- BizHawk's OSD text has a shadow (black, or 1.x's background colour)
  text_opt.color, text_opt.bg, text_opt.surface = shadow, nil, "emu"
  g_text(x + 1, y + 1, s, text_opt)
  text_opt.color = fc
  g_text(x, y, s, text_opt)
end, "drawn with a shadow on the game picture at its pixel coordinates (BizHawk draws it on the window); also "
  .. "1.x's form (x, y, message, background, forecolor, anchor)")

def("gui.addmessage", "supported", function(message) our.emu.message(tostring(message)) end, "on the OSD and stderr")
def("gui.clearGraphics", "supported", function(surf) g.clear(surface_of("gui.clearGraphics", surf)) end)
def("gui.cleartext", "warned", nil, "text lasts one frame anyway; nothing is removed")
def("gui.defaultForeground", "supported", function(c) fg = colour("gui.defaultForeground", 1, c, 0xFFFFFFFF) end)
def("gui.defaultBackground", "supported", function(c) bg = colour("gui.defaultBackground", 1, c, nil) end)
def("gui.defaultTextBackground", "supported", function(c)
  text_bg = colour("gui.defaultTextBackground", 1, c, nil)
end)
def("gui.defaultPixelFont", "warned", nil, "one pixel font: Retrolua's 6x8")
def("gui.use_surface", "supported", function(name) surface = surface_of("gui.use_surface", name) end,
  "\"emucore\" = our emu surface, \"client\" = our hud")
def("gui.DrawNew", "warned", function(name, clear)
  surface = surface_of("gui.DrawNew", name)
  if clear ~= false then g.clear(surface) end
end, "switches surface like gui.use_surface")
def("gui.DrawFinish", "warned", nil, "drawing is shown every frame already")

local images = {}
def("gui.drawImage", "approximated", function(path, x, y, w, h, cache, surf)
  local f = "gui.drawImage"
  if type(path) ~= "string" then argerror(f, 1, "path", "string", path) end
  x, y = int(f, 2, "x", x), int(f, 3, "y", y)
  local img = images[path]
  if not img then
    local err
    img, err = g.load_image(path)
    if not img then raise(f .. ": " .. tostring(err)) end
    if cache ~= false then images[path] = img end
  end
  if (w and w ~= img:width()) or (h and h ~= img:height()) then
    warn_once("bizhawk:imagescale", f .. ": images are drawn at their own size (no stretching in Retrolua)")
  end
  g.image(x, y, img, { surface = surface_of(f, surf) })
end, "PNG only, drawn at its own size")
def("gui.clearImageCache", "supported", function() images = {} end)
def("gui.drawImageRegion", "unsupported", nil, "Retrolua draws whole images only")
def("gui.drawIcon", "unsupported", nil, ".ico files are not supported; use a PNG with gui.drawImage")
def("gui.createcanvas", "unsupported", nil, "no extra windows (a GUI toolkit); draw with gui.* on the game picture")

----------------------------------------------------------------------------------------------------------------------
-- event: callbacks, returned as GUID strings
----------------------------------------------------------------------------------------------------------------------
local ev = our.event
local registered = {}  -- guid -> { ids = {our ids}, name = }
local order = {}       -- guids in registration order
local serial = 0
local function guid()
  serial = serial + 1
  return format("%08x-0000-4000-8000-%012x", 0xB12A0000 + serial, serial)
end
local function register(ids, name)
  local id = guid()
  registered[id] = { ids = ids, name = name }
  order[#order + 1] = id
  return id
end
local function check_fn(fname, fn)
  if type(fn) ~= "function" then argerror(fname, 1, "luaf", "function", fn) end
end

local function on(bizname, ourname, wrap, note)
  def("event." .. bizname, "supported", function(fn, name)
    check_fn("event." .. bizname, fn)
    return register({ ev.on(ourname, wrap and wrap(fn) or fn) }, name)
  end, note)
end
on("onframestart", "frame_start", nil, "before the frame's emulation")
on("onframeend", "frame_end", nil, "after the frame's emulation")
on("oninputpoll", "input", nil, "inside the core's input poll")
on("onexit", "exit", nil, "when the run ends")
on("onconsoleclose", "exit", nil, "when the run ends (no Lua console window)")
on("onloadstate", "state_loaded", function(fn) return function(which) fn(which ~= nil and tostring(which) or "") end end)
on("onsavestate", "state_saved", function(fn) return function(which) fn(which ~= nil and tostring(which) or "") end end)

local function memory_write(fname)
  def(fname, "approximated", function(fn, address, name, scope)
    check_fn(fname, fn)
    if address == nil then
      raise(fname .. ": a callback on every write is not available in Retrolua (give an address)")
    end
    local a = int(fname, 2, "address", address)
    -- BizHawk's memory callbacks default to the CPU's bus, not memory.usememorydomain's choice
    local v = views["System Bus"] or views["M68K BUS"] or main_view
    if scope ~= nil then v = views[scope] or domain_error(fname, scope) end
    if a < 0 or a >= v.size then raise(format("%s: address 0x%X is outside '%s'", fname, a, v.name)) end
    warn_once("bizhawk:" .. fname, fname .. ": approximated: runs once after a frame in which the byte changed")
    local at = v.swap and v.at(a) or ((v.split and a >= v.split) and v.base2 or v.base) + a
    local id = ev.watch(v.ours, at, 1, function(new) fn(a, new, 0) end)
    return register({ id }, name)
  end, "checked after each frame: called at most once per frame per changed address, with the new value (not on "
    .. "every write)")
end
memory_write("event.onmemorywrite")
memory_write("event.on_bus_write")
for _, n in ipairs({ "onmemoryread", "on_bus_read" }) do
  def("event." .. n, "unsupported", nil, "a libretro core reports no memory reads")
end
-- An execute hook runs once a frame, after it: connectors hook the vblank handler's address to tick once a frame.
local function memory_execute(fname)
  def(fname, "approximated", function(fn, address, name, scope)
    check_fn(fname, fn)
    local a = int(fname, 2, "address", address)
    local v = views["System Bus"] or views["M68K BUS"] or main_view
    if scope ~= nil then v = views[scope] or domain_error(fname, scope) end
    if a < 0 or a >= v.size then raise(format("%s: address 0x%X is outside '%s'", fname, a, v.name)) end
    warn_once("bizhawk:" .. fname, fname .. ": approximated: runs once a frame, after it, whether or not the "
      .. "address ran (a libretro core reports no executed addresses)")
    return register({ ev.on("frame_end", function() fn(a, 0, 0) end) }, name)
  end, "called once a frame, after the frame's emulation, whether or not the address ran that frame (a libretro core "
    .. "reports no executed addresses): a hook on a handler that runs every frame (the vblank vector) ticks as in "
    .. "BizHawk; one on code that runs now and then is called too often")
end
memory_execute("event.onmemoryexecute")
memory_execute("event.on_bus_exec")
for _, n in ipairs({ "onmemoryexecuteany", "on_bus_exec_any" }) do
  def("event." .. n, "unsupported", nil, "a libretro core reports no executed addresses")
end
def("event.availableScopes", "supported", function() return memory.getmemorydomainlist() end)
def("event.can_use_callback_params", "supported", function(subset) return subset == "memory" end)
def("event.unregisterbyid", "supported", function(id)
  local r = registered[id]
  if not r then return false end
  for _, ourid in ipairs(r.ids) do ev.off(ourid) end
  registered[id] = nil
  return true
end)
def("event.unregisterbyname", "supported", function(name)
  for _, id in ipairs(order) do
    local r = registered[id]
    if r and r.name == name then return event.unregisterbyid(id) end
  end
  return false
end)

----------------------------------------------------------------------------------------------------------------------
-- emu
----------------------------------------------------------------------------------------------------------------------
local E = our.emu
def("emu.frameadvance", "supported", E.frameadvance)
def("emu.framecount", "supported", E.framecount)
def("emu.lagcount", "supported", E.lagcount)
def("emu.islagged", "supported", E.islagged)
def("emu.getsystemid", "supported", function() return SYSTEM end)
def("emu.yield", "approximated", E.frameadvance, "waits for the next frame (a script cannot run between frames)")
def("emu.limitframerate", "warned", function(limit)
  E.speed(limit == false and 0 or 1)
end, "true = real time, false = unthrottled")
def("emu.minimizeframeskip", "warned", nil, "Retrolua does not skip frames")
def("emu.displayvsync", "warned", nil, "vsync is chosen on the command line (--sync, --no-vsync)")
def("emu.setrenderplanes", "warned", nil, "layers cannot be hidden through libretro; everything is drawn")
local cycles_per_frame = { NES = 29781, GB = 70224, GBC = 70224, GBA = 280896, SNES = 357366, GEN = 127840,
  PCE = 119318, A26 = 19912 }
def("emu.totalexecutedcycles", "warned", function()
  return E.framecount() * (cycles_per_frame[SYSTEM] or 0)
end, "frames × the system's CPU cycles per frame")
def("emu.getboardname", "warned", function() return "" end, "Retrolua does not know the cartridge's board; gives \"\"")
def("emu.getdisplaytype", "supported", function()
  local fps = E.info().fps or 60
  return fps < 55 and "PAL" or "NTSC"
end, "from the core's frame rate")
local no_cpu = "libretro gives no access to CPU registers"
def("emu.getregister", "unsupported", nil, no_cpu)
def("emu.getregisters", "unsupported", nil, no_cpu)
def("emu.setregister", "unsupported", nil, no_cpu)
def("emu.disassemble", "unsupported", nil, "no disassembler in Retrolua")
def("emu.setislagged", "unsupported", nil, "the lag flag is the host's (frames where the core read no input)")
def("emu.setlagcount", "unsupported", nil, "the lag count is the host's")

----------------------------------------------------------------------------------------------------------------------
-- joypad: BizHawk's button names per system ("P1 A" for multi-player systems, "A" for handhelds)
----------------------------------------------------------------------------------------------------------------------
local J = our.joypad
local buttons_by_system = {
  NES = { "Up", "up", "Down", "down", "Left", "left", "Right", "right", "Start", "start", "Select", "select",
    "B", "b", "A", "a" },
  GB = { "Up", "up", "Down", "down", "Left", "left", "Right", "right", "Start", "start", "Select", "select",
    "B", "b", "A", "a" },
  GBA = { "Up", "up", "Down", "down", "Left", "left", "Right", "right", "Start", "start", "Select", "select",
    "B", "b", "A", "a", "L", "l", "R", "r" },
  SNES = { "Up", "up", "Down", "down", "Left", "left", "Right", "right", "Select", "select", "Start", "start",
    "Y", "y", "B", "b", "X", "x", "A", "a", "L", "l", "R", "r" },
  GEN = { "Up", "up", "Down", "down", "Left", "left", "Right", "right", "A", "y", "B", "b", "C", "a", "Start",
    "start", "X", "l", "Y", "x", "Z", "r", "Mode", "select" },
  PCE = { "Up", "up", "Down", "down", "Left", "left", "Right", "right", "I", "a", "II", "b", "Select", "select",
    "Run", "start" },
  A26 = { "Up", "up", "Down", "down", "Left", "left", "Right", "right", "Button", "a" },
}
buttons_by_system.GBC = buttons_by_system.GB
buttons_by_system.SMS = buttons_by_system.A26
local prefixed = { NES = 2, SNES = 2, GEN = 2, PCE = 1, SMS = 2, A26 = 2 }
local pairs_list = buttons_by_system[SYSTEM] or { "Up", "up", "Down", "down", "Left", "left", "Right", "right",
  "Start", "start", "Select", "select", "B", "b", "A", "a", "Y", "y", "X", "x", "L", "l", "R", "r" }
local PORTS = prefixed[SYSTEM]
local biz_names, ours_of = {}, {}  -- BizHawk name (and lower case) -> our button
for i = 1, #pairs_list, 2 do
  biz_names[#biz_names + 1] = pairs_list[i]
  ours_of[pairs_list[i]] = pairs_list[i + 1]
  ours_of[pairs_list[i]:lower()] = pairs_list[i + 1]
end

-- "P2 A" -> 2, "A"; "A" -> default port
local function split_name(key, port)
  local p, rest = key:match("^[Pp](%d+) (.+)$")
  if p then return tonumber(p), rest end
  return port, key
end

local function to_biz(state, port, prefix, out)
  out = out or {}
  for _, name in ipairs(biz_names) do
    out[prefix and ("P" .. port .. " " .. name) or name] = state[ours_of[name]] == true
  end
  return out
end

-- NES: BizHawk's zapper on port 2 ("P2 Zapper X", "P2 Zapper Y", "P2 Fire"), driven by the mouse as BizHawk and
-- FCEUX drive it: its position in game pixels, the left button as the trigger.
local ZAPPER_PORT = SYSTEM == "NES" and 2 or nil
local function add_zapper(out, prefix)
  local mouse = our.input.mouse()
  local ew, eh = our.gui.surface_size("emu")
  local hw, hh = our.gui.surface_size("hud")
  local sx, sy = (hw > 0) and ew / hw or 1, (hh > 0) and eh / hh or 1
  out[prefix .. "Zapper X"] = floor((mouse.x or 0) * sx)
  out[prefix .. "Zapper Y"] = floor((mouse.y or 0) * sy)
  out[prefix .. "Fire"] = mouse.left == true
  return out
end

local function get_buttons(getter)
  return function(controller)
    if controller ~= nil then
      local port = int("joypad.get", 1, "controller", controller)
      -- BizHawk filters by the "Pn " prefix: a controller the system does not have gives an empty table
      if port < 1 or port > (PORTS or 1) then return {} end
      local out = to_biz(getter(port), port, false)
      if port == ZAPPER_PORT then add_zapper(out, "") end
      return out
    end
    if not PORTS then return to_biz(getter(1), 1, false) end
    local out = {}
    for port = 1, PORTS do to_biz(getter(port), port, true, out) end
    if ZAPPER_PORT then add_zapper(out, "P" .. ZAPPER_PORT .. " ") end
    return out
  end
end
def("joypad.get", "supported", get_buttons(J.get), "as the core saw them at its last input poll; NES: the zapper "
  .. "(\"P2 Zapper X\", \"P2 Zapper Y\", \"P2 Fire\") from the mouse")
def("joypad.getwithmovie", "supported", get_buttons(J.get))
def("joypad.getimmediate", "approximated", get_buttons(J.get), "the last polled buttons (no separate live read)")

local pending = {}  -- port -> our button table, reused
-- BizHawk reads a button's value as text: "true"/"false", blank (the player's own input), or anything else, which
-- inverts the player's input; Retrolua cannot invert a player's input, so that one presses the button (warned).
local function truthy(v)
  if v == true or v == false then return v end
  if type(v) == "string" then
    local l = v:lower()
    if l == "true" then return true end
    if l == "false" then return false end
    if not l:find("%S") then return nil end
    warn_once("bizhawk:invert", "joypad.set: '" .. v .. "' inverts the player's input in BizHawk; here it presses "
      .. "the button")
    return true
  end
  if v == nil then return nil end
  return v and true or false
end
def("joypad.set", "supported", function(buttons, controller)
  local f = "joypad.set"
  if type(buttons) == "number" and type(controller) == "table" then buttons, controller = controller, buttons end
  if type(buttons) ~= "table" then argerror(f, 1, "buttons", "table", buttons) end
  local default = controller ~= nil and int(f, 2, "controller", controller) or 1
  for k in pairs(pending) do pending[k] = nil end
  for key, value in pairs(buttons) do
    if type(key) == "string" then
      local port, name = split_name(key, default)
      local button = ours_of[name] or ours_of[name:lower()]
      if button then
        local t = pending[port]
        if not t then
          t = {}
          pending[port] = t
        end
        t[button] = truthy(value)
      elseif name == "Power" or name == "Reset" then
        if truthy(value) then
          warn_once("bizhawk:power", f .. ": '" .. name .. "' runs emu." .. name:lower() .. "() now")
          if name == "Power" then E.power() else E.reset() end
        end
      elseif port == ZAPPER_PORT and (name == "Zapper X" or name == "Zapper Y" or name == "Fire") then
        -- what joypad.get gave back, as scripts pass it on: the zapper is the mouse's, not the script's
        if value ~= add_zapper({}, "")[name] then
          warn_once("bizhawk:zapper", f .. ": the zapper follows the mouse and cannot be set (the NES lightgun port "
            .. "is not bound); '" .. key .. "' is not applied")
        end
      else
        warn_once("bizhawk:button:" .. key, format("%s: no button '%s' on %s (buttons: %s)", f, key, SYSTEM,
          concat(biz_names, ", ")))
      end
    end
  end
  for port, t in pairs(pending) do J.set(port, t) end
end, "true presses, false releases, for the next frame; also joypad.set(port, buttons)")

local axis_of = { ["x axis"] = "x", ["y axis"] = "y", ["stick x"] = "x", ["stick y"] = "y", ["tilt x"] = "x",
  ["tilt y"] = "y", ["x"] = "x", ["y"] = "y" }
def("joypad.setanalog", "warned",
  function(controls, controller)
    if type(controls) ~= "table" then argerror("joypad.setanalog", 1, "controls", "table", controls) end
    local axes = {}
    for key, value in pairs(controls) do
      local port, name = split_name(key, controller and int("joypad.setanalog", 2, "controller", controller) or 1)
      local axis = axis_of[name:lower()]
      if axis and type(value) == "number" then
        axes[port] = axes[port] or { x = 0, y = 0 }
        axes[port][axis] = math.max(-32768, math.min(32767, floor(value * 256)))
      end
    end
    for port, a in pairs(axes) do J.set_analog(port, "left", a.x, a.y) end
  end, "left stick for the next frame; BizHawk's -128…127 scaled to libretro's range")

-- Input-log mnemonics: one group per controller, a letter per button in BizHawk's log order, '.' = released.
local mnemonic_order = {
  NES = "UDLRsSBA", GB = "UDLRsSBA", GBC = "UDLRsSBA", GBA = "UDLRsSBALR", SNES = "UDLRsSYBXALR",
  GEN = "UDLRABCSXYZM", PCE = "UDLR12sR",
}
local mnemonic_names = {
  NES = { "Up", "Down", "Left", "Right", "Select", "Start", "B", "A" },
  GBA = { "Up", "Down", "Left", "Right", "Select", "Start", "B", "A", "L", "R" },
  SNES = { "Up", "Down", "Left", "Right", "Select", "Start", "Y", "B", "X", "A", "L", "R" },
  GEN = { "Up", "Down", "Left", "Right", "A", "B", "C", "Start", "X", "Y", "Z", "Mode" },
  PCE = { "Up", "Down", "Left", "Right", "I", "II", "Select", "Run" },
}
mnemonic_names.GB, mnemonic_names.GBC = mnemonic_names.NES, mnemonic_names.NES
def("joypad.setfrommnemonicstr", "warned", function(s)
  if type(s) ~= "string" then argerror("joypad.setfrommnemonicstr", 1, "inputLogEntry", "string", s) end
  local names = mnemonic_names[SYSTEM]
  if not names then raise("joypad.setfrommnemonicstr: no mnemonic layout for " .. SYSTEM) end
  local port = 0
  for group in s:gmatch("|([^|]*)") do
    if #group == #names then
      port = port + 1
      local t = {}
      for i = 1, #names do t[ours_of[names[i]]] = group:sub(i, i) ~= "." and group:sub(i, i) ~= " " end
      J.set(port, t)
    end
  end
end, "buttons only: analog values and console commands are ignored")

----------------------------------------------------------------------------------------------------------------------
-- input: the host's keyboard and mouse, with BizHawk's key names
----------------------------------------------------------------------------------------------------------------------
local I = our.input
local key_names = {
  ["return"] = "Enter", ["enter"] = "Enter", ["escape"] = "Escape", ["space"] = "Space", ["tab"] = "Tab",
  ["backspace"] = "Backspace", ["delete"] = "Delete", ["insert"] = "Insert", ["home"] = "Home", ["end"] = "End",
  ["page up"] = "PageUp", ["page down"] = "PageDown", ["up"] = "Up", ["down"] = "Down", ["left"] = "Left",
  ["right"] = "Right", ["left shift"] = "LeftShift", ["right shift"] = "RightShift", ["left ctrl"] = "LeftCtrl",
  ["right ctrl"] = "RightCtrl", ["left alt"] = "LeftAlt", ["right alt"] = "RightAlt", ["caps lock"] = "CapsLock",
  ["-"] = "Minus", ["="] = "Equals", [","] = "Comma", ["."] = "Period", ["/"] = "Slash", [";"] = "Semicolon",
  ["'"] = "Apostrophe", ["["] = "LeftBracket", ["]"] = "RightBracket", ["\\"] = "Backslash", ["`"] = "Backtick",
  ["keypad enter"] = "NumberPadEnter", ["keypad +"] = "NumberPadPlus", ["keypad -"] = "NumberPadMinus",
  ["keypad *"] = "NumberPadStar", ["keypad /"] = "NumberPadSlash", ["keypad ."] = "NumberPadPeriod",
}
local function biz_key(k)
  local known = key_names[k]
  if known then return known end
  if #k == 1 and k:match("%a") then return k:upper() end
  if #k == 1 and k:match("%d") then return "Number" .. k end
  local f = k:match("^f(%d+)$")
  if f then return "F" .. f end
  local pad = k:match("^keypad (%d)$")
  if pad then return "NumberPad" .. pad end
  return (k:gsub("^%l", string.upper))
end
local function mouse_in_game()
  local ms = I.mouse()
  local ew, eh = g.surface_size("emu")
  local hw, hh = g.surface_size("hud")
  local sx, sy = (hw > 0) and ew / hw or 1, (hh > 0) and eh / hh or 1
  return ms, floor((ms.x or 0) * sx), floor((ms.y or 0) * sy)
end
-- SDL GameController buttons -> BizHawk's XInput names ("X1 A", "X1 DpadUp"…)
local pad_names = { a = "A", b = "B", x = "X", y = "Y", back = "Back", guide = "Guide", start = "Start",
  leftstick = "LeftThumb", rightstick = "RightThumb", leftshoulder = "LeftShoulder", rightshoulder = "RightShoulder",
  dpup = "DpadUp", dpdown = "DpadDown", dpleft = "DpadLeft", dpright = "DpadRight" }
def("input.get", "supported", function()
  local t = {}
  for k, down in pairs(I.keys()) do
    if down then t[biz_key(k)] = true end
  end
  for i, pad in ipairs(I.gamepads()) do
    for button, down in pairs(pad.buttons or {}) do
      if down then t["X" .. i .. " " .. (pad_names[button] or button)] = true end
    end
  end
  local ms = I.mouse()
  if ms.left then t["WMouse L"] = true end
  if ms.right then t["WMouse R"] = true end
  if ms.middle then t["WMouse M"] = true end
  if ms.x1 then t["WMouse 1"] = true end
  if ms.x2 then t["WMouse 2"] = true end
  return t
end, "keys by BizHawk's names (\"A\", \"Number1\", \"NumberPad1\", \"Enter\", \"LeftShift\", \"F1\"…), gamepad buttons "
  .. "(\"X1 A\") and mouse buttons (\"WMouse L\")")
def("input.getmouse", "supported", function()
  local ms, x, y = mouse_in_game()
  return { X = x, Y = y, Left = ms.left == true, Middle = ms.middle == true, Right = ms.right == true,
    XButton1 = ms.x1 == true, XButton2 = ms.x2 == true, Wheel = ms.wheel or 0 }
end, "in game pixels")
local axis_names = { leftx = "LeftThumbX Axis", lefty = "LeftThumbY Axis", rightx = "RightThumbX Axis",
  righty = "RightThumbY Axis", triggerleft = "LeftTrigger Axis", triggerright = "RightTrigger Axis" }
def("input.get_pressed_axes", "supported", function()
  local t = {}
  for i, pad in ipairs(I.gamepads()) do
    for axis, value in pairs(pad.axes or {}) do
      if value ~= 0 then t["X" .. i .. " " .. (axis_names[axis] or axis)] = value end
    end
  end
  local _, x, y = mouse_in_game()
  t["WMouse X"], t["WMouse Y"] = x, y
  return t
end, "gamepad axes off centre (\"X1 LeftThumbX Axis\"…) and the mouse position (\"WMouse X\")")

----------------------------------------------------------------------------------------------------------------------
-- console: BizHawk's write (no newline) and writeline over our line-based console
----------------------------------------------------------------------------------------------------------------------
local C = our.console
-- BizHawk prints values as .NET does: True/False, 3 for 3.0, tables as one "key": "value" line per entry.
local function show(v)
  local t = type(v)
  if t == "boolean" then return v and "True" or "False" end
  if t == "number" and math_type(v) == "float" and v == floor(v) and v > -2 ^ 53 and v < 2 ^ 53 then
    return format("%d", v)
  end
  if t ~= "table" then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  sort(keys, function(a, b) return show(a) < show(b) end)
  local lines = {}
  for _, k in ipairs(keys) do lines[#lines + 1] = format("\"%s\": \"%s\"\n", show(k), show(v[k])) end
  return concat(lines)
end
local partial = {}  -- text of the line being written (our console writes whole lines)
-- A line left unfinished is written when the run ends, or when the main chunk that wrote it has returned. Those
-- callbacks exist only while such a line does: a callback keeps a script running, and a script whose main chunk
-- returned without registering any of its own is done.
local flush_hooks
local function flush_partial()
  if #partial > 0 then C.write(concat(partial)) end
  for k in pairs(partial) do partial[k] = nil end
  if flush_hooks then
    for _, id in ipairs(flush_hooks) do ev.off(id) end
    flush_hooks = nil
  end
end
local function emit(text)
  for piece, newline in text:gmatch("([^\n]*)(\n?)") do
    if piece ~= "" then partial[#partial + 1] = piece end
    if newline == "\n" then
      C.write(concat(partial))
      for k in pairs(partial) do partial[k] = nil end
    end
  end
  if #partial > 0 and not flush_hooks then
    flush_hooks = { ev.on("exit", flush_partial) }
    local writing, main = coroutine.running()
    if not main then
      flush_hooks[2] = ev.on("draw", function() if coroutine.status(writing) == "dead" then flush_partial() end end)
    end
  elseif #partial == 0 and flush_hooks then
    flush_partial()
  end
end
local function printer(separator, terminator)
  return function(...)
    local n = select("#", ...)
    local parts = {}
    for i = 1, n do parts[i] = show((select(i, ...))) end
    emit(concat(parts, separator) .. terminator)
  end
end
def("console.log", "supported", printer("\t", "\n"), "values tab-separated, tables as \"key\": \"value\" lines")
def("console.writeline", "supported", printer("\n", "\n"), "each value on its own line")
def("console.output", "supported", printer("\t", "\n"), "BizHawk 1.x's name of console.log")
def("console.write", "supported", printer("", ""), "text without a newline is kept until the line ends (or the run ends)")
def("console.clear", "warned", nil, "a terminal keeps its output")

----------------------------------------------------------------------------------------------------------------------
-- savestate, memorysavestate
----------------------------------------------------------------------------------------------------------------------
local S = our.savestate
local function state_call(fname, fn, arg)
  local ok, err = fn(arg)
  if not ok then
    warn_once("bizhawk:" .. fname .. tostring(err), fname .. ": " .. tostring(err))
    return false
  end
  return true
end
def("savestate.save", "supported", function(path)
  if type(path) ~= "string" then argerror("savestate.save", 1, "path", "string", path) end
  return state_call("savestate.save", S.save, path)
end)
def("savestate.load", "supported", function(path)
  if type(path) ~= "string" then argerror("savestate.load", 1, "path", "string", path) end
  return state_call("savestate.load", S.load, path)
end)
def("savestate.saveslot", "supported", function(slot)
  return state_call("savestate.saveslot", S.save, int("savestate.saveslot", 1, "slot", slot))
end)
def("savestate.loadslot", "supported", function(slot)
  return state_call("savestate.loadslot", S.load, int("savestate.loadslot", 1, "slot", slot))
end)

local core_states = {}
def("memorysavestate.savecorestate", "supported", function()
  local id = guid()
  core_states[id] = S.create()
  return id
end)
def("memorysavestate.loadcorestate", "supported", function(id)
  local s = core_states[id]
  if not s then raise(format("memorysavestate.loadcorestate: no state '%s'", tostring(id))) end
  local ok, err = s:load()
  if not ok then raise("memorysavestate.loadcorestate: " .. tostring(err)) end
end)
def("memorysavestate.removestate", "supported", function(id) core_states[id] = nil end)
local function clear_states() core_states = {} end
def("memorysavestate.clearstatesfrommemory", "supported", clear_states)
def("memorysavestate.clearstatesregistry", "supported", clear_states, "older name")

----------------------------------------------------------------------------------------------------------------------
-- movie
----------------------------------------------------------------------------------------------------------------------
local M = our.movie
local modes = { idle = "INACTIVE", play = "PLAY", record = "RECORD", finished = "FINISHED" }
local counting = true
def("movie.mode", "supported", function() return modes[M.mode()] or "INACTIVE" end)
def("movie.isloaded", "supported", function() return M.mode() ~= "idle" end)
def("movie.length", "supported", M.length)
def("movie.filename", "supported", function()
  local i = M.info()
  return i and i.path or ""
end)
def("movie.getinput", "supported", function(frame, controller)
  local f = int("movie.getinput", 1, "frame", frame)
  if controller ~= nil then
    local port = int("movie.getinput", 2, "controller", controller)
    local t = M.input(f, port)
    return t and to_biz(t, port, false) or nil
  end
  local out = {}
  for port = 1, PORTS or 1 do
    local t = M.input(f, port)
    if not t then return nil end
    to_biz(t, port, PORTS ~= nil, out)
  end
  return out
end)
def("movie.getinputasmnemonic", "approximated", function(frame)
  local names, f = mnemonic_names[SYSTEM], int("movie.getinputasmnemonic", 1, "frame", frame)
  local order_ = mnemonic_order[SYSTEM]
  if not names then return "" end
  local groups = { "|" }
  for port = 1, PORTS or 1 do
    local t = M.input(f, port) or {}
    local g_ = {}
    for i = 1, #names do g_[i] = t[ours_of[names[i]]] and order_:sub(i, i) or "." end
    groups[#groups + 1] = concat(g_) .. "|"
  end
  return concat(groups)
end, "buttons only")
def("movie.getreadonly", "supported", function() return M.readonly() end)
def("movie.setreadonly", "supported", function(readonly) M.readonly(readonly and true or false) end)
def("movie.getrerecordcount", "supported", function() return M.rerecords() end)
def("movie.setrerecordcount", "supported", function(n) M.rerecords(int("movie.setrerecordcount", 1, "count", n)) end)
def("movie.getrerecordcounting", "supported", function() return counting end)
def("movie.setrerecordcounting", "supported", function(enabled)
  counting = enabled and true or false
  M.set_rerecord_counting(counting)
end)
def("movie.stop", "supported", function(save)
  if save == false then warn_once("bizhawk:moviediscard", "movie.stop(false): a recording is saved anyway") end
  M.stop()
end)
def("movie.save", "supported", function(name) return M.save(name) end)
def("movie.play_from_start", "supported", function(path)
  local p = path or (M.info() or {}).path
  if not p then return false end
  return M.play(p) == true
end)
def("movie.getheader", "supported", function()
  local i = M.info()
  if not i then return {} end
  return { Author = i.author or "", rerecordCount = tostring(i.rerecords or 0), Core = i.core or "",
    GameName = i.content or "", SHA1 = (i.content_sha1 or ""):upper(), StartsFromSavestate = tostring(i.start == "state") }
end)
def("movie.getcomments", "supported", function() return {} end, "Retrolua movies have no comments: empty")
def("movie.getsubtitles", "supported", function() return {} end, "no subtitles: empty")
def("movie.getfps", "supported", function() return E.info().fps end)
def("movie.startsfromsavestate", "supported", function()
  local i = M.info()
  return i ~= nil and i.start == "state"
end)
def("movie.startsfromsaveram", "supported", function() return false end)

----------------------------------------------------------------------------------------------------------------------
-- client
----------------------------------------------------------------------------------------------------------------------
def("client.pause", "supported", E.pause, "no effect headless")
def("client.unpause", "supported", E.unpause)
def("client.togglepause", "supported", function() if E.paused() then E.unpause() else E.pause() end end)
def("client.ispaused", "supported", E.paused)
def("client.speedmode", "supported", function(percent)
  E.speed(int("client.speedmode", 1, "percent", percent) / 100)
end)
def("client.getversion", "approximated", function()
  -- scripts call it to gate on the version: say what they are told and how to change it
  warn_once("bizhawk:getversion", "client.getversion: reports BizHawk " .. options.version .. " (this layer follows "
    .. "2.11's API; a script that checks the version sees " .. options.version .. "); another with --compat "
    .. "bizhawk:version=X.Y.Z")
  return options.version
end, "2.9.1 by default, the newest the published connectors accept (the layer follows 2.11's API); "
  .. "--compat bizhawk:version=X.Y.Z reports another; warns once that a script checking it is told so")
def("client.exit", "supported", function() E.exit(0) end)
def("client.exitCode", "supported", function(code) E.exit(int("client.exitCode", 1, "code", code or 0)) end)
def("client.reboot_core", "supported", function() E.power() end, "power-cycles the game")
def("client.screenwidth", "supported", function() return (g.surface_size("hud")) end)
def("client.screenheight", "supported", function() return select(2, g.surface_size("hud")) end)
-- the game's own size: the emu surface less the game extra padding, as BizHawk's buffer size excludes it
def("client.bufferwidth", "supported", function()
  local left, _, right = g.padding()
  return (g.surface_size("emu")) - left - right
end)
def("client.bufferheight", "supported", function()
  local _, top, _, bottom = g.padding()
  return select(2, g.surface_size("emu")) - top - bottom
end)
def("client.borderwidth", "supported", function() return 0 end)
def("client.borderheight", "supported", function() return 0 end)
def("client.screenshot", "supported", function(path)
  if path == nil then
    path = format("%s/%s.%d.png", E.paths().screenshots, (E.info().rom or {}).name or "screenshot", E.framecount())
  end
  return g.screenshot(path, { padding = true })
end, "the client area (the game and its extra padding); without a path: GAME.FRAME.png in the screenshots folder")
def("client.get_approx_framerate", "approximated", function() return floor(E.info().fps + 0.5) end,
  "the core's frame rate")
def("client.getavailabletools", "supported", function() return {} end, "no tool windows: empty")
def("client.isturbo", "supported", function() return (E.speed() or 1) == 0 end)
def("client.isseeking", "supported", function() return false end)
def("client.is_rewinding", "supported", function() return false end)
def("client.get_lua_engine", "supported", function() return "Lua 5.4" end)
def("client.getwindowsize", "approximated", function() return 1 end, "gives 1")
def("client.transformPoint", "approximated", function(x, y) return { x = x, y = y } end, "identity")
def("client.xpos", "approximated", function() return 0 end, "gives 0")
def("client.ypos", "approximated", function() return 0 end, "gives 0")
def("client.addcheat", "supported", function(code)
  return our.cheats.add_code(code)
end, "a core cheat code (Game Genie…)")
def("client.removecheat", "supported", function(code)
  for _, c in ipairs(our.cheats.list()) do
    if c.code == code then return our.cheats.remove(c.id) end
  end
  return false
end)
def("client.getluafunctionslist", "supported", function()
  local names = {}
  for _, entry in ipairs(compat.support[LAYER]) do names[#names + 1] = entry.name end
  return concat(names, "\n")
end)
-- Room around the game for trackers: the window grows by it, the emu surface covers it with its origin at the padded
-- top-left (as BizHawk's), and client.screenshot keeps it.
local function padding_side(f, n, name, v)
  v = v == nil and 0 or int(f, n, name, v)
  if v < 0 or v > 4096 then error(format("%s: bad argument #%d '%s' (0…4096 expected, got %d)", f, n, name, v), 3) end
  return v
end
def("client.SetGameExtraPadding", "supported", function(left, top, right, bottom)
  local f = "client.SetGameExtraPadding"
  g.padding(padding_side(f, 1, "left", left), padding_side(f, 2, "top", top), padding_side(f, 3, "right", right),
    padding_side(f, 4, "bottom", bottom))
end, "in game pixels: the window grows by it at the game's scale")
def("client.SetClientExtraPadding", "approximated", function(left, top, right, bottom)
  local f = "client.SetClientExtraPadding"
  g.padding(padding_side(f, 1, "left", left), padding_side(f, 2, "top", top), padding_side(f, 3, "right", right),
    padding_side(f, 4, "bottom", bottom))
end, "the same room as SetGameExtraPadding: in game pixels (scaled with the game), not window pixels")
for _, name in ipairs({ "setwindowsize", "frameskip", "displaymessages", "SetSoundOn", "enablerewind",
  "clearautohold", "setscreenshotosd", "settargetscanlineintensity", "pause_av", "unpause_av" }) do
  def("client." .. name, "warned",
    nil, "accepted without effect (a window or timing setting Retrolua takes from its own options)")
end
for _, name in ipairs({ "sleep", "exactsleep" }) do
  def("client." .. name, "warned", nil, "returns at once: the host paces frames, and a script must not block it")
end
def("client.saveram", "unsupported", nil, "battery saves are written when the run ends; scripts cannot flush them")
def("client.GetSoundOn", "approximated", function() return true end, "gives true")
-- Scripts read settings to restore them when they end, or to warn about them (savestate compression, rewind): the
-- tables of BizHawk's Config that scripts read are given with BizHawk's defaults where Retrolua has no such setting.
-- BizHawk's preferred core per system (its defaults), this system's being the BizHawk core nearest the one running:
-- connectors report it (Archipelago's PREFERRED_CORES).
local nearest_core = {  -- per system: { words of our core's name, BizHawk's core }, the first match wins
  NES = { { "quicknes", "QuickNes" }, { "", "NesHawk" } }, SNES = { { "snes9x", "Snes9x" }, { "", "BSNES" } },
  GB = { { "sameboy", "SameBoy" }, { "", "Gambatte" } }, PCE = { { "", "TurboNyma" } },
}
nearest_core.GBC = nearest_core.GB
local function preferred_cores()
  local cores = { NES = "QuickNes", SNES = "Snes9x", GB = "Gambatte", GBC = "Gambatte", GBL = "GambatteLink",
    SGB = "Gambatte", DGB = "GambatteLink", PCE = "TurboNyma", PCECD = "TurboNyma", SGX = "TurboNyma",
    SGXCD = "TurboNyma" }
  local running = (info.core or ""):lower()
  for _, pair in ipairs(nearest_core[SYSTEM] or {}) do
    if running:find(pair[1], 1, true) then
      cores[SYSTEM] = pair[2]
      break
    end
  end
  return cores
end
local function config_tables()
  return {
    Savestates = { Type = "Binary", CompressionLevelNormal = 1, CompressionLevelRewind = 0, MakeBackups = true,
      SaveScreenshot = true, BigScreenshotSize = 0x20000, NoLowResLargeScreenshots = false },
    Rewind = { Enabled = true, UseCompression = false, UseDelta = false, BufferSize = 512, TargetFrameLength = 500,
      TargetRewindInterval = 5, UseFixedRewindInterval = false, AllowOutOfOrderStates = true, BackingStore = "Memory" },
    Movies = { MovieEndAction = "Finish", EnableBackupMovies = true, MoviesOnDisk = false, MovieCompressionLevel = 2,
      VBAStyleMovieLoadState = false, PlaySoundOnMovieEnd = false },
    PathEntries = { UseRecentForRoms = false, LastRomPath = ".", Paths = {} },
    RecentRoms = { MAX_RECENT_FILES = 30, AutoLoad = false, Frozen = false },
    RecentMovies = { MAX_RECENT_FILES = 30, AutoLoad = false, Frozen = false },
    RecentLua = { MAX_RECENT_FILES = 30, AutoLoad = false, Frozen = false },
    PreferredCores = preferred_cores(), TargetZoomFactors = {}, FirmwareUserSpecifications = {},
  }
end
def("client.getconfig", "warned", function()
  local speed = E.speed() or 1
  local config = config_tables()
  config.SpeedPercent = speed == 0 and 6400 or floor(speed * 100 + 0.5)
  config.SpeedPercentAlternate, config.ClockThrottle, config.Unthrottled = 400, true, speed == 0
  config.DisplayMessages, config.displaymessages, config.ScreenshotCaptureOsd = true, true, false
  config.SoundEnabled, config.SoundVolume, config.SoundEnabledNormal, config.SoundEnabledRWFF = true, 100, true, true
  config.AutofireOn, config.AutofireOff, config.FrameAdvanceHoldMilliseconds = 1, 1, 500
  config.DisplayFps, config.DisplayFrameCounter, config.DisplayLagCounter, config.DisplayInput = false, false, false, false
  config.AutosaveSaveRAM, config.SaveSlot, config.RunInBackground = false, 0, true
  return config
end, "SpeedPercent from the speed; the Savestates, Rewind, Movies, PathEntries (no paths), Recent* and other tables "
  .. "scripts read, with BizHawk's defaults; PreferredCores: BizHawk's defaults, this system's being the BizHawk core "
  .. "nearest the running one; display messages and sound on, screenshot OSD off; other settings nil")
def("client.gettargetscanlineintensity", "approximated", function() return 0 end, "gives 0")
for _, name in ipairs({ "openrom", "closerom", "createinstance", "opencheats", "openhexeditor", "openramsearch",
  "openramwatch", "opentasstudio", "opentoolbox", "opentracelogger", "gettool",
  "show_future", "screenshottoclipboard" }) do
  def("client." .. name, "unsupported", nil, "a BizHawk window or tool; Retrolua has none")
end

----------------------------------------------------------------------------------------------------------------------
-- gameinfo, userdata
----------------------------------------------------------------------------------------------------------------------
def("gameinfo.getromname", "supported", function() return E.info().rom and E.info().rom.name or "Null" end)
def("gameinfo.getromhash", "approximated", function()
  return ((E.info().rom or {}).sha1 or ""):upper()
end, "SHA-1 of the content file (BizHawk hashes some systems without headers)")
def("gameinfo.getstatus", "approximated", function() return "Unknown" end, "no game database: \"Unknown\"")
def("gameinfo.indatabase", "approximated", function() return false end, "no game database: false")
def("gameinfo.isstatusbad", "approximated", function() return false end, "no game database: false")
def("gameinfo.getboardtype", "approximated", function() return "" end, "gives \"\"")
def("gameinfo.getoptions", "approximated", function()
  local t = {}
  for _, o in ipairs(E.options()) do t[o.key] = o.value end
  return t
end, "the core's options")

-- userdata is kept with savestates (as in BizHawk): one table in savestate.data.
local USERDATA = "bizhawk.userdata"
local function ud() return S.data(USERDATA) or {} end
def("userdata.get", "supported", function(key) return ud()[key] end)
def("userdata.set", "supported", function(key, value)
  local f = "userdata.set"
  if type(key) ~= "string" then argerror(f, 1, "name", "string", key) end
  local tv = type(value)
  if tv ~= "string" and tv ~= "number" and tv ~= "boolean" and value ~= nil then
    argerror(f, 2, "value", "string, number or boolean", value)
  end
  local t = ud()
  t[key] = value
  S.data(USERDATA, t)
end, "kept with savestates")
def("userdata.containskey", "supported", function(key) return ud()[key] ~= nil end)
def("userdata.remove", "supported", function(key)
  local t = ud()
  local had = t[key] ~= nil
  t[key] = nil
  S.data(USERDATA, t)
  return had
end)
def("userdata.clear", "supported", function() S.data(USERDATA, {}) end)
def("userdata.get_keys", "supported", function()
  local keys = {}
  for k in pairs(ud()) do keys[#keys + 1] = k end
  sort(keys)
  return keys
end)

----------------------------------------------------------------------------------------------------------------------
-- Lua 5.1 leftovers (BizHawk ran Lua 5.1 until 2.9; most published scripts were written for it)
----------------------------------------------------------------------------------------------------------------------
compat.lua51(LAYER)

----------------------------------------------------------------------------------------------------------------------
-- bizstring, bit
----------------------------------------------------------------------------------------------------------------------
local function s_arg(f, n, v)
  if type(v) == "number" then return tostring(v) end
  if type(v) ~= "string" then argerror(f, n, "str", "string", v) end
  return v
end
local function base_digits(n, b)
  n = n & 0xFFFFFFFFFFFFFFFF
  if n == 0 then return "0" end
  local digits = {}
  while n ~= 0 do
    local d = n % b
    digits[#digits + 1] = ("0123456789ABCDEF"):sub(d + 1, d + 1)
    n = n // b
  end
  return string.reverse(concat(digits))
end
def("bizstring.hex", "supported", function(n) return base_digits(int("bizstring.hex", 1, "num", n), 16) end)
def("bizstring.binary", "supported", function(n) return base_digits(int("bizstring.binary", 1, "num", n), 2) end)
def("bizstring.octal", "supported", function(n) return base_digits(int("bizstring.octal", 1, "num", n), 8) end)
def("bizstring.contains", "supported", function(s, sub)
  return s_arg("bizstring.contains", 1, s):find(s_arg("bizstring.contains", 2, sub), 1, true) ~= nil
end)
def("bizstring.startswith", "supported", function(s, p)
  s, p = s_arg("bizstring.startswith", 1, s), s_arg("bizstring.startswith", 2, p)
  return s:sub(1, #p) == p
end)
def("bizstring.endswith", "supported", function(s, p)
  s, p = s_arg("bizstring.endswith", 1, s), s_arg("bizstring.endswith", 2, p)
  return p == "" or s:sub(-#p) == p
end)
def("bizstring.tolower", "supported", function(s) return s_arg("bizstring.tolower", 1, s):lower() end)
def("bizstring.toupper", "supported", function(s) return s_arg("bizstring.toupper", 1, s):upper() end)
def("bizstring.trim", "supported", function(s) return (s_arg("bizstring.trim", 1, s):match("^%s*(.-)%s*$")) end)
def("bizstring.replace", "supported", function(s, old, new)
  s, old, new = s_arg("bizstring.replace", 1, s), s_arg("bizstring.replace", 2, old), s_arg("bizstring.replace", 3, new)
  if old == "" then return s end
  local out, i = {}, 1
  while true do
    local a, b = s:find(old, i, true)
    if not a then break end
    out[#out + 1] = s:sub(i, a - 1)
    out[#out + 1] = new
    i = b + 1
  end
  out[#out + 1] = s:sub(i)
  return concat(out)
end)
def("bizstring.substring", "supported", function(s, pos, len)
  s = s_arg("bizstring.substring", 1, s)
  local p = int("bizstring.substring", 2, "position", pos)
  return s:sub(p + 1, p + int("bizstring.substring", 3, "length", len))  -- 0-based position, as in .NET
end)
def("bizstring.remove", "supported", function(s, pos, count)
  s = s_arg("bizstring.remove", 1, s)
  local p = int("bizstring.remove", 2, "position", pos)
  return s:sub(1, p) .. s:sub(p + int("bizstring.remove", 3, "count", count) + 1)
end)
def("bizstring.pad_start", "supported", function(s, len, ch)
  s = s_arg("bizstring.pad_start", 1, s)
  local n = int("bizstring.pad_start", 2, "length", len) - #s
  return n > 0 and (tostring(ch or " "):sub(1, 1)):rep(n) .. s or s
end)
def("bizstring.pad_end", "supported", function(s, len, ch)
  s = s_arg("bizstring.pad_end", 1, s)
  local n = int("bizstring.pad_end", 2, "length", len) - #s
  return n > 0 and s .. (tostring(ch or " "):sub(1, 1)):rep(n) or s
end)
def("bizstring.split", "supported", function(s, sep)
  s = s_arg("bizstring.split", 1, s)
  sep = sep and s_arg("bizstring.split", 2, sep) or " "
  local t, i = {}, 1
  if sep == "" then return { s } end
  while true do
    local a, b = s:find(sep, i, true)
    if not a then break end
    if a > i then t[#t + 1] = s:sub(i, a - 1) end
    i = b + 1
  end
  if i <= #s then t[#t + 1] = s:sub(i) end
  return t
end, "empty parts dropped, 1-indexed")
def("bizstring.encode", "approximated", function(s) return s_arg("bizstring.encode", 1, s) end, "strings are bytes: unchanged")
def("bizstring.decode", "approximated", function(s) return s_arg("bizstring.decode", 1, s) end, "strings are bytes: unchanged")
def("bizstring.fold", "approximated", function(s) return s_arg("bizstring.fold", 1, s) end, "unchanged (no Unicode folding)")

local U32 = 0xFFFFFFFF
local function u(f, v) return int(f, 1, "val", v) & U32 end
def("bit.band", "supported", function(...)
  local r = U32
  for i = 1, select("#", ...) do r = r & u("bit.band", (select(i, ...))) end
  return r
end)
def("bit.bor", "supported", function(...)
  local r = 0
  for i = 1, select("#", ...) do r = r | u("bit.bor", (select(i, ...))) end
  return r
end)
def("bit.bxor", "supported", function(...)
  local r = 0
  for i = 1, select("#", ...) do r = r ~ u("bit.bxor", (select(i, ...))) end
  return r
end)
def("bit.bnot", "supported", function(v) return ~u("bit.bnot", v) & U32 end)
def("bit.lshift", "supported", function(v, n) return (u("bit.lshift", v) << (int("bit.lshift", 2, "amt", n) & 31)) & U32 end)
def("bit.rshift", "supported", function(v, n) return u("bit.rshift", v) >> (int("bit.rshift", 2, "amt", n) & 31) end)
def("bit.arshift", "supported", function(v, n)
  local x = u("bit.arshift", v)
  if x >= 0x80000000 then x = x - 0x100000000 end
  return (x // (1 << (int("bit.arshift", 2, "amt", n) & 31))) & U32
end)
def("bit.rol", "supported", function(v, n)
  local x, k = u("bit.rol", v), int("bit.rol", 2, "amt", n) & 31
  return ((x << k) | (x >> (32 - k))) & U32
end)
def("bit.ror", "supported", function(v, n)
  local x, k = u("bit.ror", v), int("bit.ror", 2, "amt", n) & 31
  return ((x >> k) | (x << (32 - k))) & U32
end)
def("bit.check", "supported", function(v, pos)
  return (int("bit.check", 1, "num", v) >> int("bit.check", 2, "pos", pos)) & 1 == 1
end)
def("bit.set", "supported", function(v, pos) return int("bit.set", 1, "num", v) | (1 << int("bit.set", 2, "pos", pos)) end)
def("bit.clear", "supported", function(v, pos)
  return int("bit.clear", 1, "num", v) & ~(1 << int("bit.clear", 2, "pos", pos))
end)
def("bit.byteswap_16", "supported", function(v)
  local x = int("bit.byteswap_16", 1, "val", v) & 0xFFFF
  return ((x & 0xFF) << 8) | (x >> 8)
end)
def("bit.byteswap_32", "supported", function(v)
  local x = u("bit.byteswap_32", v)
  return ((x & 0xFF) << 24) | ((x & 0xFF00) << 8) | ((x >> 8) & 0xFF00) | (x >> 24)
end)
def("bit.byteswap_64", "supported", function(v)
  local x, r = int("bit.byteswap_64", 1, "val", v), 0
  for _ = 1, 8 do
    r = (r << 8) | (x & 0xFF)
    x = x >> 8
  end
  return r
end)

----------------------------------------------------------------------------------------------------------------------
-- tastudio: TAStudio's calls over our tastudio module (the TAS editor's model of the movie; docs/guides/tas.md)
----------------------------------------------------------------------------------------------------------------------
local T = our.tastudio
local queued = {}  -- submit* calls wait for applyinputchanges, as in TAStudio
local function frame_arg(fname, n, v)
  local frame = int(fname, n, "frame", v)
  if frame < 0 then raise(format("%s: bad argument #%d 'frame' (must be 0 or more)", fname, n)) end
  return frame
end
local function seek(frame)
  local ok, problem = T.seek(math.min(frame, T.length()))
  if not ok then raise("tastudio.setplayback: " .. tostring(problem)) end
end
def("tastudio.engaged", "supported", function() return T.engaged() end, "whether the TAS editor shows the movie")
def("tastudio.getrecording", "supported", function() return not our.movie.readonly() end, "read-write mode")
def("tastudio.setrecording", "supported", function(recording) our.movie.readonly(not recording) end, "read-write mode")
def("tastudio.togglerecording", "supported", function() our.movie.readonly(not our.movie.readonly()) end)
def("tastudio.setplayback", "supported", function(target)
  if type(target) == "string" then
    for _, marker in ipairs(T.markers()) do
      if marker.note == target then return seek(marker.frame) end
    end
    raise("tastudio.setplayback: no marker named '" .. target .. "'")
  end
  seek(frame_arg("tastudio.setplayback", 1, target))
end, "a frame or a marker's note; seeks through the greenzone at once")
def("tastudio.getseekframe", "approximated", function() return T.frame() end,
  "seeking finishes at once, so the seek frame is the current frame")
def("tastudio.islag", "supported", function(frame) return T.islag(frame_arg("tastudio.islag", 1, frame)) end)
def("tastudio.hasstate", "supported", function(frame) return T.hasstate(frame_arg("tastudio.hasstate", 1, frame)) end)
def("tastudio.getmarker", "supported", function(frame) return T.marker(frame_arg("tastudio.getmarker", 1, frame)) or "" end)
def("tastudio.setmarker", "supported", function(frame, message)
  T.set_marker(frame_arg("tastudio.setmarker", 1, frame), message ~= nil and tostring(message) or "")
end)
def("tastudio.removemarker", "supported", function(frame) T.remove_marker(frame_arg("tastudio.removemarker", 1, frame)) end)
def("tastudio.get_frames_with_markers", "supported", function()
  local frames = {}
  for index, marker in ipairs(T.markers()) do frames[index] = marker.frame end
  return frames
end)
def("tastudio.find_marker_on_or_before", "supported", function(frame)
  frame = frame_arg("tastudio.find_marker_on_or_before", 1, frame)
  local found
  for _, marker in ipairs(T.markers()) do
    if marker.frame <= frame then found = marker.frame end
  end
  return found
end, "the marker's frame, nil when there is none")
def("tastudio.getselection", "supported", function() return T.selection() end, "a list of frames, ascending")
def("tastudio.submitinputchange", "supported", function(frame, button, value)
  frame = frame_arg("tastudio.submitinputchange", 1, frame)
  if type(button) ~= "string" then argerror("tastudio.submitinputchange", 2, "button", "string", button) end
  local port, name = split_name(button, 1)
  local ours = ours_of[name] or ours_of[name:lower()]
  if not ours then raise("tastudio.submitinputchange: unknown button '" .. button .. "'") end
  queued[#queued + 1] = function() return T.set_button(frame, port, ours, value and true or false) end
end, "buttons by BizHawk name (\"P1 A\"); applied by applyinputchanges")
for _, spec in ipairs({ { "submitinsertframes", "insert" }, { "submitdeleteframes", "delete" },
  { "submitclearframes", "clear" } }) do
  local fname, ours = "tastudio." .. spec[1], T[spec[2]]
  def(fname, "supported", function(frame, count)
    frame = frame_arg(fname, 1, frame)
    count = int(fname, 2, "count", count == nil and 1 or count)
    if count < 1 then return end
    queued[#queued + 1] = function() return ours(frame, count) end
  end)
end
def("tastudio.applyinputchanges", "supported", function()
  local changes = queued
  queued = {}
  if #changes == 0 then return end
  local here = T.frame()
  T.begin("lua")
  for _, change in ipairs(changes) do change() end
  local first = T.apply()
  -- TAStudio's auto-restore: an edit before the current frame comes back to it.
  if first and first < here then T.seek(math.min(here, T.length())) end
end, "one undo step; returns to the current frame after an edit before it")
def("tastudio.clearinputchanges", "supported", function() queued = {} end)
def("tastudio.ongreenzoneinvalidated", "supported", function(fn, name)
  check_fn("tastudio.ongreenzoneinvalidated", fn)
  return register({ T.on_changed(fn) }, name)
end, "called with the first changed frame after every edit")
def("tastudio.getbranches", "supported", function()
  local list = {}
  for index, branch in ipairs(our.movie.branches() or {}) do
    list[index] = { Id = branch.name, Frame = branch.frame, Text = branch.name }
  end
  return list
end, "Id and Text are the branch's name")
def("tastudio.get_branch_index_by_id", "supported", function(id)
  for index, branch in ipairs(our.movie.branches() or {}) do
    if branch.name == id then return index - 1 end
  end
  return -1
end)
def("tastudio.loadbranch", "supported", function(index)
  index = int("tastudio.loadbranch", 1, "index", index)
  local branch = (our.movie.branches() or {})[index + 1]
  if not branch then raise(format("tastudio.loadbranch: no branch %d", index)) end
  local ok, problem = our.movie.branch_load(branch.name)
  if not ok then raise("tastudio.loadbranch: " .. tostring(problem)) end
end, "by 0-based index, as getbranches lists them")
for _, spec in ipairs({
  { "addcolumn", "the editor's columns are the movie's buttons" },
  { "clearIconCache", "the editor draws no icons" },
  { "onqueryitembg", "the editor's colours are its own (replace lua/defaults/tastudio.lua to change them)" },
  { "onqueryitemicon", "the editor draws no icons" },
  { "onqueryitemtext", "the editor's cells are its own (replace lua/defaults/tastudio.lua to change them)" },
  { "onbranchload", "there are no branch events" }, { "onbranchsave", "there are no branch events" },
  { "onbranchremove", "there are no branch events" },
  { "setbranchtext", "a branch's text is its name" },
  { "getbranchinput", "a branch's input is read by loading it" },
  { "setlag", "lag is what the core did, not an edit" },
  { "submitanalogchange", "the editor edits buttons" },
}) do
  def("tastudio." .. spec[1], "unsupported", nil, spec[2])
end

----------------------------------------------------------------------------------------------------------------------
-- Names BizHawk had before 2.6-2.9, which older published scripts still call: their successors here
----------------------------------------------------------------------------------------------------------------------
for old, new in pairs({ ["gui.drawNew"] = "gui.DrawNew", ["gui.drawFinish"] = "gui.DrawFinish",
  ["emu.getluacore"] = "client.get_lua_engine" }) do
  local module, name = new:match("^(%w+)%.(.+)$")
  def(old, "supported", _G[module][name], "BizHawk's older name for " .. new)
end
def("client.invisibleemulation", "warned", nil, "every frame is still drawn; only BizHawk's speed depended on it")

----------------------------------------------------------------------------------------------------------------------
-- comm.socketServer*: BizHawk's client of a tool's TCP server (--compat bizhawk:socket=HOST:PORT, BizHawk's
-- --socket_ip and --socket_port) over the net module's TCP (--allow-net: loopback). A message goes as BizHawk 2.6.2
-- and later send it, "LENGTH message"; socketServerResponse reads one reply of that form.
----------------------------------------------------------------------------------------------------------------------
do
  local net_ = rawget(_G, "net")
  local server = { ip = options.socket_ip, port = socket_port, timeout = 0, successful = false, inbox = "" }
  -- BizHawk's default timeout is none (wait for ever): here a wait is at most 5 s of host time, 0 meaning that too
  local LONGEST_WAIT, LARGEST_REPLY = 5000, 16 << 20
  local NO_SERVER = "no socket server: give one with --compat bizhawk:socket=HOST:PORT (BizHawk's --socket_ip and "
    .. "--socket_port)"

  local function forget()
    if server.conn then server.conn:close() end
    server.conn, server.inbox = nil, ""
  end
  -- The open connection, connecting first when there is none (as BizHawk does on each use); nil after a warning.
  local function connection(fname)
    if not server.ip or not server.port then
      warn_once("bizhawk:comm:none", fname .. ": " .. NO_SERVER)
      return nil
    end
    if server.conn and server.conn:state() ~= "closed" then return server.conn end
    forget()
    if type(net_) ~= "table" or not net_.tcp_connect then
      warn_once("bizhawk:comm:net", fname .. ": this Retrolua has no TCP sockets for scripts")
      return nil
    end
    local host = server.ip:find(":", 1, true) and "[" .. server.ip .. "]" or server.ip
    local conn, problem = net_.tcp_connect(host .. ":" .. server.port)
    if not conn then
      warn_once("bizhawk:comm:" .. tostring(problem), fname .. ": " .. tostring(problem))
      return nil
    end
    for _ = 1, 5 do
      if conn:state() ~= "connecting" then break end
      conn:wait(1000)
    end
    local state, why = conn:state()
    if state ~= "open" then
      conn:close()
      warn_once("bizhawk:comm:" .. tostring(why), format("%s: cannot reach %s:%d: %s", fname, server.ip, server.port,
        tostring(why or "timeout")))
      return nil
    end
    server.conn = conn
    return conn
  end
  local function send(fname, bytes)
    local conn = connection(fname)
    if not conn then
      server.successful = false
      return -1
    end
    local sent = conn:send(bytes)
    server.successful = sent ~= nil and sent > 0
    if not sent then forget() return -1 end
    if sent < #bytes then
      warn_once("bizhawk:comm:full", fname .. ": the server reads too slowly: the message was cut at the host's "
        .. "send buffer (1 MiB)")
    end
    return sent
  end
  local function with_length(text) return #text .. " " .. text end
  -- One "LENGTH message" reply, waiting at most the timeout; "" when none came (as BizHawk's failures give).
  local function receive(fname)
    local conn = connection(fname)
    if not conn then return "" end
    local limit = (server.timeout > 0 and server.timeout < LONGEST_WAIT) and server.timeout or LONGEST_WAIT
    local deadline = net_.clock() + limit / 1000
    while true do
      local digits, rest = server.inbox:match("^(%d+) (.*)$")
      if digits then
        local length = tointeger(tonumber(digits))
        if #digits > 9 or length > LARGEST_REPLY then
          warn_once("bizhawk:comm:large", fname .. ": a reply of " .. digits .. " bytes is refused (at most 16 MiB)")
          forget()
          return ""
        end
        if #rest >= length then
          server.inbox = rest:sub(length + 1)
          return rest:sub(1, length)
        end
      elseif server.inbox:find("^%d*[^%d]") or #server.inbox > 10 then
        warn_once("bizhawk:comm:framing", fname .. ": the server's reply is not \"LENGTH message\"; the connection "
          .. "is dropped")
        forget()
        return ""
      end
      local data = conn:receive()
      if data then
        server.inbox = server.inbox .. data
      else
        local left = deadline - net_.clock()
        if conn:state() == "closed" or left <= 0 then return "" end
        conn:wait(math.max(1, math.min(1000, floor(left * 1000))))
      end
    end
  end
  local function screenshot_bytes()
    local name = "bizhawk-socket-screenshot.png"
    local ok, problem = g.screenshot(E.paths().data .. "/" .. name)
    if not ok then
      warn_once("bizhawk:comm:shot", "comm.socketServerScreenShot: " .. tostring(problem))
      return nil
    end
    return E.load_data(name)
  end
  local function screenshot(fname, respond)
    local png = screenshot_bytes()
    local sent = png and send(fname, with_length(png)) or -1
    server.successful = sent > 0
    if not respond then return server.successful and "Screenshot was sent" or "Screenshot could not be sent" end
    local reply = server.successful and receive(fname) or ""
    return reply == "" and "Failed to get a response" or reply
  end

  local note = "over the net module's TCP: the script needs --allow-net; the server is --compat bizhawk:socket=HOST:PORT"
  def("comm.socketServerSend", "supported", function(text)
    return send("comm.socketServerSend", with_length(tostring(text)))
  end, "sends \"LENGTH message\" and gives the bytes sent, -1 when there is no server or it cannot be reached ("
    .. note .. ")")
  def("comm.socketServerSendBytes", "supported", function(bytes)
    if type(bytes) ~= "table" then argerror("comm.socketServerSendBytes", 1, "byteArray", "table", bytes) end
    local chars = {}
    for i, b in ipairs(bytes) do chars[i] = string.char(int("comm.socketServerSendBytes", 1, "byte", b) & 0xFF) end
    return send("comm.socketServerSendBytes", concat(chars))
  end, "the bytes as they are, without a length")
  def("comm.socketServerResponse", "supported", function() return receive("comm.socketServerResponse") end,
    "one \"LENGTH message\" reply; \"\" when none came within the timeout (at most 5 s, also when it is 0: BizHawk's "
      .. "0 waits for ever)")
  def("comm.socketServerScreenShot", "supported", function() return screenshot("comm.socketServerScreenShot") end,
    "the picture as a PNG, with its length")
  def("comm.socketServerScreenShotResponse", "supported", function()
    return screenshot("comm.socketServerScreenShotResponse", true)
  end, "the picture as a PNG, then one reply")
  def("comm.socketServerSetTimeout", "supported", function(ms)
    server.timeout = math.max(0, int("comm.socketServerSetTimeout", 1, "timeout", ms))
  end, "milliseconds a reply is waited for (at most 5 s)")
  def("comm.socketServerIsConnected", "supported", function()
    -- BizHawk connects when it starts: here the first use connects, and this is a use
    return server.ip ~= nil and server.port ~= nil and connection("comm.socketServerIsConnected") ~= nil
  end, "connects first when there is a server and no connection (BizHawk connects when it starts)")
  def("comm.socketServerSuccessful", "supported", function() return server.ip ~= nil and server.successful end)
  def("comm.socketServerGetIp", "supported", function() return server.ip end)
  def("comm.socketServerGetPort", "supported", function() return server.port end)
  def("comm.socketServerGetInfo", "supported", function()
    if not server.ip or not server.port then return "" end
    return server.ip .. ":" .. server.port
  end)
  def("comm.socketServerSetIp", "supported", function(ip)
    if type(ip) ~= "string" then argerror("comm.socketServerSetIp", 1, "ip", "string", ip) end
    forget()
    server.ip = ip
  end, "connects there at the next use")
  def("comm.socketServerSetPort", "supported", function(port)
    port = int("comm.socketServerSetPort", 1, "port", port)
    if port < 1 or port > 65535 then raise(format("comm.socketServerSetPort: bad argument #1 'port' (1…65535 "
      .. "expected, got %d)", port)) end
    forget()
    server.port = port
  end, "connects there at the next use")
end

----------------------------------------------------------------------------------------------------------------------
-- Modules a libretro host has no counterpart for: clear errors
----------------------------------------------------------------------------------------------------------------------
-- forms: kept in memory (no dialog windows here), lua/compat/bizhawk_forms.lua
local forms_path = package.searchpath("compat.bizhawk_forms", package.path)
if not forms_path then raise("bizhawk layer: lua/compat/bizhawk_forms.lua is not installed") end
rawset(_G, "forms", assert(loadfile(forms_path))(compat, LAYER, raise))
def("forms.createcolor", "supported", function(r, g_, b, a) return compat.argb(r, g_, b, a) end,
  "a colour number for gui.*")
local unsupported_modules = {
  comm = { "HTTP, WebSockets and memory-mapped files are not available to scripts; comm.socketServer* is (TCP, "
    .. "--allow-net), and so is the control socket (docs/guides/control-socket.md)",
    "getluafunctionslist httpGet httpGetGetUrl httpGetPostUrl httpPost httpPostScreenshot httpSetGetUrl "
    .. "httpSetPostUrl httpSetTimeout httpTest httpTestGet mmfCopyFromMemory mmfCopyToMemory mmfGetFilename mmfRead "
    .. "mmfReadBytes mmfScreenshot mmfSetFilename mmfWrite mmfWriteBytes ws_open ws_send ws_receive ws_get_status "
    .. "ws_close" },
  SQL = { "no SQLite in Retrolua", "createdatabase opendatabase readcommand writecommand" },
  nes = { "PPU settings of BizHawk's NES core; set the core's options with emu.option",
    "getallowmorethaneightsprites getbottomscanline getclipleftandright getdispbackground getdispsprites "
    .. "gettopscanline setallowmorethaneightsprites setclipleftandright setdispbackground setdispsprites setscanlines" },
  snes = { "layer switches of BizHawk's SNES core",
    "getlayer_bg_1 getlayer_bg_2 getlayer_bg_3 getlayer_bg_4 getlayer_obj_1 getlayer_obj_2 getlayer_obj_3 "
    .. "getlayer_obj_4 setlayer_bg_1 setlayer_bg_2 setlayer_bg_3 setlayer_bg_4 setlayer_obj_1 setlayer_obj_2 "
    .. "setlayer_obj_3 setlayer_obj_4" },
  genesis = { "layer switches of BizHawk's Genesis core",
    "add_deepfreeze_value clear_deepfreeze_list getlayer_bga getlayer_bgb getlayer_bgw setlayer_bga setlayer_bgb "
    .. "setlayer_bgw" },
  nds = { "screen settings of BizHawk's DS core",
    "getaudiobitdepth getscreengap getscreeninvert getscreenlayout getscreenrotation setaudiobitdepth setscreengap "
    .. "setscreeninvert setscreenlayout setscreenrotation" },
  doom = { "hooks of BizHawk's Doom core", "on_cross on_intercept on_prandom on_use" },
}
for module, spec in pairs(unsupported_modules) do
  -- one row per module in the support table: every function of it fails the same way
  local count = 0
  for name in spec[2]:gmatch("%S+") do
    local full = module .. "." .. name
    compat.define(full, function() raise(full .. ": not available in Retrolua (" .. spec[1] .. ")") end)
    count = count + 1
  end
  compat.record(LAYER, module .. ".*", "unsupported", spec[1] .. " (" .. count .. " functions)")
  -- anything else in these modules fails with the same reason
  setmetatable(_G[module], { __index = function(_, key)
    raise(format("%s.%s: not available in Retrolua (%s)", module, tostring(key), spec[1]))
  end })
end

return compat
