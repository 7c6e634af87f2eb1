-- FCEUX compatibility layer: FCEUX's Lua API (memory, gui, emu/FCEU, joypad, savestate, movie, input, rom,
-- zapper, debugger, taseditor, bit, AND/OR/XOR/BIT/SHIFT and Lua 5.1 leftovers) over Retrolua's public API,
-- run in the script's own state before it (`--compat fceux`). Semantics follow FCEUX's documentation:
-- colours are 0xRRGGBBAA numbers, names, "#RRGGBB[AA]", "P00"-"P3F" or {r,g,b,a}; boxes take corners; the
-- CPU bus is the NES's. What libretro cannot do is an approximation that warns once, or a clear error.
local _, script_dir = ...  -- the host passes the script's path and folder
local compat = require("compat.common")
local LAYER = "fceux"

local type, tostring, tonumber, select, pairs, ipairs, error, pcall = type, tostring, tonumber, select, pairs, ipairs,
  error, pcall
local floor, math_type = math.floor, math.type
local char, byte, format, concat = string.char, string.byte, string.format, table.concat
local warn_once = compat.warn_once

local def = compat.definer(LAYER)

-- Ours, kept before the FCEUX names replace them.
local our = {
  read_u8 = memory.read_u8, write_u8 = memory.write_u8, read_bytes = memory.read_bytes, domains = memory.domains,
  watch = event.watch, on = event.on, off = event.off,
  rect = gui.rect, text = gui.text, text_size = gui.text_size, pixel = gui.pixel, line = gui.line,
  getpixel = gui.getpixel, frame = gui.frame, screenshot = gui.screenshot, surface_size = gui.surface_size,
  joy_get = joypad.get, joy_set = joypad.set,
  state_create = savestate.create, state_save = savestate.save, state_load = savestate.load,
  state_data = savestate.data,
  movie_mode = movie.mode, movie_info = movie.info, movie_play = movie.play, movie_record = movie.record,
  movie_stop = movie.stop, movie_length = movie.length, movie_frame = movie.frame, movie_readonly = movie.readonly,
  movie_rerecords = movie.rerecords, movie_save = movie.save, movie_counting = movie.set_rerecord_counting,
  keys = input.keys, mouse = input.mouse,
  message = emu.message, reset = emu.reset, power = emu.power, speed = emu.speed, framecount = emu.framecount,
  info = emu.info, paths = emu.paths,
  add_code = cheats.add_code, cheat_list = cheats.list, cheat_remove = cheats.remove,
  warn = console.warn, print = print,
}

local info = our.info()
local is_nes = info.system == "Nintendo Entertainment System"
-- FCEUX's y runs over the whole 240-line picture; a core that crops overscan (nestopia: 224 lines) starts at 8.
local yoff = info.crop and info.crop.top or 0

-- Raises "NAME: bad argument #I 'WHAT' (EXPECTED expected, got TYPE)" at the script's call (`level` extra frames up).
-- FCEUX runs a script in its own folder: a relative path given to a movie, state or screenshot function is there;
-- here, as the script's own files (lua/host/script_folder.lua), one it writes goes to its data folder, and one it
-- reads is looked for there first.
local script_paths = package.loaded["compat.script_paths"]
local function from_script_folder(path)
  if type(path) == "string" and type(script_dir) == "string" and path ~= "" and path:sub(1, 1) ~= "/" then
    return script_dir .. "/" .. path
  end
  return path
end
local function to_read(path)
  if script_paths and type(path) == "string" then return script_paths.for_reading(path) end
  return from_script_folder(path)
end
local function to_write(path)
  if script_paths and type(path) == "string" then return script_paths.for_writing(path) end
  return from_script_folder(path)
end

local function bad_argument(name, index, what, expected, value, level)
  error(format("%s: bad argument #%d '%s' (%s expected, got %s)", name, index, what, expected, type(value)),
    3 + (level or 0))
end

-- An integer from a Lua 5.1 number (FCEUX truncates, as luaL_checkinteger did); numeric strings are accepted.
local function int(value, name, index, what)
  if math_type(value) == "integer" then return value end
  local number = tonumber(value)
  if not number or number ~= number or number == math.huge or number == -math.huge then
    bad_argument(name, index, what, "number", value, 1)
  end
  if number >= 0 then return floor(number) end
  return -floor(-number)
end

------------------------------------------------------------------------------------------------------------------
-- memory: the NES CPU bus. $0000-$1FFF is the 2 KB of RAM mirrored (our system_ram, the fast path), the rest
-- goes through our `bus` domain, which maps an NROM cartridge's PRG ROM at $8000-$FFFF (banked ROM is the core's).

local has_domain = {}
for _, domain in ipairs(our.domains()) do has_domain[domain.name] = domain end
local read_u8, write_u8, read_bytes = our.read_u8, our.write_u8, our.read_bytes
local ram_domain = (is_nes and has_domain.system_ram) and "system_ram" or nil

local function bus_read(address, name)
  if address < 0 or address > 0xFFFF then
    error(format("%s: address %d is outside the NES CPU bus ($0000-$FFFF)", name, address), 3)
  end
  if has_domain.bus then
    local ok, value = pcall(read_u8, address, "bus")
    if ok then return value end
  elseif not is_nes then
    return read_u8(address)
  end
  local why = "it exposes RAM and save RAM, not PPU/APU registers"
  if address >= 0x8000 then why = "PRG ROM: not an NROM cartridge" end
  warn_once("fceux.read." .. (address >> 12),
    format("%s: $%04X is not readable through this core (%s); reads there return 0", name, address, why))
  return 0
end

local function readbyte(address)
  if math_type(address) ~= "integer" then address = int(address, "memory.readbyte", 1, "address") end
  if ram_domain and address >= 0 and address < 0x2000 then return read_u8(address & 0x7FF) end
  return bus_read(address, "memory.readbyte")
end

local function readbytesigned(address)
  local value = readbyte(address)
  if value >= 0x80 then return value - 0x100 end
  return value
end

local function readword(low, high)
  low = int(low, "memory.readword", 1, "address")
  if type(high) == "number" then high = int(high, "memory.readword", 2, "high address") else high = low + 1 end
  return readbyte(low & 0xFFFF) | (readbyte(high & 0xFFFF) << 8)
end

local function readwordsigned(low, high)
  local value = readword(low, high)
  if value >= 0x8000 then return value - 0x10000 end
  return value
end

local function readbyterange(address, length)
  address = int(address, "memory.readbyterange", 1, "address")
  length = int(length, "memory.readbyterange", 2, "length")
  if length <= 0 then return "" end
  if ram_domain and address >= 0 and address + length <= 0x2000 and (address & 0x7FF) + length <= 0x800 then
    return read_bytes(address & 0x7FF, length)
  end
  local parts = {}
  for i = 1, length do parts[i] = char(readbyte((address + i - 1) & 0xFFFF)) end
  return concat(parts)
end

local function writebyte(address, value)
  if math_type(address) ~= "integer" then address = int(address, "memory.writebyte", 1, "address") end
  if math_type(value) ~= "integer" then value = int(value, "memory.writebyte", 2, "value") end
  value = value & 0xFF
  if ram_domain and address >= 0 and address < 0x2000 then return write_u8(address & 0x7FF, value) end
  if address < 0 or address > 0xFFFF then return end  -- FCEUX ignores writes off the bus
  local ok = has_domain.bus and pcall(write_u8, address, value, "bus")
  if not ok and not has_domain.bus and not is_nes then ok = pcall(write_u8, address, value) end
  if not ok then
    warn_once("fceux.write." .. (address >> 12), format(
      "memory.writebyte: $%04X is not writable through this core (only RAM and save RAM are); the write is dropped",
      address))
  end
end

def("memory.readbyte", "supported", readbyte,
  "NES CPU bus: RAM, save RAM and NROM PRG ROM; PPU/APU registers read 0 (warns)")
def("memory.readbyteunsigned", "supported", readbyte)
def("memory.readbytesigned", "supported", readbytesigned)
def("memory.readword", "supported", readword, "little-endian; optional second address for the high byte")
def("memory.readwordunsigned", "supported", readword)
def("memory.readwordsigned", "supported", readwordsigned)
def("memory.readbyterange", "supported", readbyterange, "a string of bytes")
def("memory.writebyte", "supported", writebyte, "RAM and save RAM; elsewhere the write is dropped with a warning")
def("memory.legacywritebyte", "approximated", writebyte, "a plain write (FCEUX's cheat-engine write)")
def("memory.getregister", "unsupported", nil, "CPU registers are not exposed by libretro cores")
def("memory.setregister", "unsupported", nil, "CPU registers are not exposed by libretro cores")

-- registerwrite: a watch per byte, checked after each frame: called at most once per frame per changed byte,
-- with FCEUX's arguments (address, size, value) and the value the frame ended with.
local write_hooks = {}
local function registerwrite(name)
  return function(address, size, fn, ...)
    address = int(address, name, 1, "address")
    if type(size) == "number" then
      size = int(size, name, 2, "size")
    else
      size, fn = 1, size
    end
    if type(fn) == "string" then fn = ... end  -- FCEUX's optional cpu name ("main"/"sub")
    if size < 0 then size, address = -size, address + size end
    if fn ~= nil and type(fn) ~= "function" then bad_argument(name, 3, "func", "function or nil", fn) end
    if size > 0x10000 then error(name .. ": size " .. size .. " is larger than the bus", 2) end
    if fn then
      warn_once("fceux.registerwrite", name .. ": approximated: the callback runs after the frame, once per changed"
        .. " byte, with the value the frame ended with")
    end
    for a = address, address + size - 1 do
      if write_hooks[a] then our.off(write_hooks[a]); write_hooks[a] = nil end
      if fn then
        local hooked = a
        local callback = function(new) fn(hooked, 1, new) end
        if ram_domain and a >= 0 and a < 0x2000 then
          write_hooks[a] = our.watch(ram_domain, a & 0x7FF, 1, callback)
        elseif has_domain.bus then
          local ok, id = pcall(our.watch, "bus", a, 1, callback)
          if not ok then error(format("%s: $%04X cannot be watched on this core (%s)", name, a, tostring(id)), 2) end
          write_hooks[a] = id
        else
          error(format("%s: $%04X cannot be watched on this core (no CPU bus domain)", name, a), 2)
        end
      end
    end
  end
end
def("memory.registerwrite", "approximated", registerwrite("memory.registerwrite"),
  "RAM: called after the frame, at most once per changed byte, with (address, 1, new value)")
def("memory.register", "approximated", registerwrite("memory.register"), "as memory.registerwrite")
for _, name in ipairs({ "memory.registerexec", "memory.registerexecute", "memory.registerrun" }) do
  def(name, "unsupported", nil, "libretro cores report no executed addresses (no exec hooks)")
end
def("memory.registerread", "unsupported", nil, "libretro cores report no memory reads (no read hooks)")

------------------------------------------------------------------------------------------------------------------
-- gui: FCEUX colours → ours (0xAARRGGBB), cached; gui.opacity scales alpha.

local NES_PALETTE = {  -- the standard 2C02 palette, $00-$3F
  0x7C7C7C, 0x0000FC, 0x0000BC, 0x4428BC, 0x940084, 0xA80020, 0xA81000, 0x881400,
  0x503000, 0x007800, 0x006800, 0x005800, 0x004058, 0x000000, 0x000000, 0x000000,
  0xBCBCBC, 0x0078F8, 0x0058F8, 0x6844FC, 0xD800CC, 0xE40058, 0xF83800, 0xE45C10,
  0xAC7C00, 0x00B800, 0x00A800, 0x00A844, 0x008888, 0x000000, 0x000000, 0x000000,
  0xF8F8F8, 0x3CBCFC, 0x6888FC, 0x9878F8, 0xF878F8, 0xF85898, 0xF87858, 0xFCA044,
  0xF8B800, 0xB8F818, 0x58D854, 0x58F898, 0x00E8D8, 0x787878, 0x000000, 0x000000,
  0xFCFCFC, 0xA4E4FC, 0xB8B8F8, 0xD8B8F8, 0xF8B8F8, 0xF8A4C0, 0xF0D0B0, 0xFCE0A8,
  0xF8D878, 0xD8F878, 0xB8F8B8, 0xB8F8D8, 0x00FCFC, 0xF8D8F8, 0x000000, 0x000000,
}
local NAMED = {  -- FCEUX's colour names, as 0xRRGGBBAA
  white = 0xFFFFFFFF, black = 0x000000FF, clear = 0x00000000, transparent = 0x00000000, gray = 0x7F7F7FFF,
  grey = 0x7F7F7FFF, red = 0xFF0000FF, orange = 0xFF7F00FF, yellow = 0xFFFF00FF, chartreuse = 0x7FFF00FF,
  green = 0x00FF00FF, teal = 0x00FF7FFF, cyan = 0x00FFFFFF, blue = 0x0000FFFF, purple = 0x7F00FFFF,
  magenta = 0xFF00FFFF,
}

-- 0xRRGGBBAA from a string, or nil when it names no colour.
local function parse_string(text)
  if text:sub(1, 1) == "#" then
    local digits = text:sub(2)
    local value = tonumber(digits, 16)
    if not value or #digits == 0 or #digits > 8 then return nil end
    local missing = 8 - #digits
    value = value << (missing * 4)
    if missing >= 2 then value = value | 0xFF end
    return value & 0xFFFFFFFF
  end
  local index = text:match("^[Pp](%x%x?)$")
  if index then return (NES_PALETTE[(tonumber(index, 16) & 0x3F) + 1] << 8) | 0xFF end
  local lower = text:lower()
  if lower:sub(1, 4) == "rand" then return (math.random(0, 0xFFFFFF) << 8) | 0xFF end
  return NAMED[lower]
end

-- 0xRRGGBBAA from any FCEUX colour value, or nil.
local function parse(value)
  local kind = type(value)
  if kind == "number" then
    if math_type(value) ~= "integer" then value = floor(value) end
    return value & 0xFFFFFFFF
  elseif kind == "string" then
    return parse_string(value)
  elseif kind == "table" then
    local r = value.r or value[1] or 0
    local g = value.g or value[2] or 0
    local b = value.b or value[3] or 0
    local a = value.a or value[4] or 255
    local function clamp(c) c = floor(tonumber(c) or 0) return c < 0 and 0 or (c > 255 and 255 or c) end
    return (clamp(r) << 24) | (clamp(g) << 16) | (clamp(b) << 8) | clamp(a)
  end
  return nil
end

local opacity = 255
local cache, cached, edge_cache = {}, 0, {}

-- Ours (0xAARRGGBB, scaled by gui.opacity) from an FCEUX colour. `default` (0xRRGGBBAA) stands in for nil and,
-- as in FCEUX, for an unknown name (with a warning); without a default both are errors naming `name`.
local function colour(value, default, name)
  local hit = cache[value]
  if hit then return hit end
  if value == nil then
    if default == nil then error(name .. ": a colour is required", 3) end
    return colour(default)
  end
  local rgba = parse(value)
  if not rgba then
    if default == nil or type(value) ~= "string" then
      error(format("%s: unknown colour %s (FCEUX colours: 0xRRGGBBAA, a name, \"#RRGGBB\", \"P00\"-\"P3F\", {r,g,b,a})",
        name, tostring(value)), 3)
    end
    warn_once("fceux.colour." .. value,
      format("%s: unknown colour %q: drawn in the default colour, as FCEUX does", name, value))
    rgba = parse(default)
  end
  local alpha = ((rgba & 0xFF) * opacity) // 255
  if alpha > 255 then alpha = 255 end
  local argb = (alpha << 24) | (rgba >> 8)
  if type(value) ~= "table" then
    if cached >= 4096 then cache, cached = {}, 0 end
    cache[value], cached = argb, cached + 1
  end
  return argb
end

local function set_opacity(level)
  if level < 0 then level = 0 end
  opacity = level
  cache, cached, edge_cache = {}, 0, {}
end

local rect, text, pixel, line = our.rect, our.text, our.pixel, our.line
local box_options = { color = 0, fill = nil }
local DEFAULT_FILL = 0x3FFFFFFF  -- white at alpha 63 (FCEUX's), as 0xRRGGBBAA

-- The outline's default: the fill's colour, opaque (then scaled by gui.opacity).
local function opaque_of(fill)
  local hit = edge_cache[fill]
  if hit then return hit end
  hit = colour((parse(fill) or DEFAULT_FILL) | 0xFF)
  if type(fill) ~= "table" then edge_cache[fill] = hit end
  return hit
end

local function box(x1, y1, x2, y2, fill, outline)
  if math_type(x1) ~= "integer" then x1 = int(x1, "gui.box", 1, "x1") end
  if math_type(y1) ~= "integer" then y1 = int(y1, "gui.box", 2, "y1") end
  if math_type(x2) ~= "integer" then x2 = int(x2, "gui.box", 3, "x2") end
  if math_type(y2) ~= "integer" then y2 = int(y2, "gui.box", 4, "y2") end
  if x1 > x2 then x1, x2 = x2, x1 end
  if y1 > y2 then y1, y2 = y2, y1 end
  if fill == nil then fill = DEFAULT_FILL end
  local inside = cache[fill] or colour(fill, DEFAULT_FILL, "gui.box")
  local edge
  if outline == nil then
    edge = edge_cache[fill] or opaque_of(fill)
  else
    edge = cache[outline] or colour(outline, (parse(fill) or DEFAULT_FILL) | 0xFF, "gui.box")
  end
  box_options.color = edge
  box_options.fill = (x2 - x1 >= 2 and y2 - y1 >= 2) and inside or nil
  rect(x1, y1 - yoff, x2 - x1 + 1, y2 - y1 + 1, box_options)
end

local text_options = { color = 0, bg = 0 }
local TEXT_BG = 0x1B1269FF  -- FCEUX's default text background

local function text_string(value)
  if type(value) == "string" then return value end
  if math_type(value) == "float" and value == floor(value) and value > -1e15 and value < 1e15 then
    return format("%d", value)  -- Lua 5.1 printed 3.0 as "3"
  end
  return tostring(value)
end

local function draw_text(x, y, message, color, background)
  text_options.color = cache[color] or colour(color, 0xFFFFFFFF, "gui.text")
  text_options.bg = cache[background] or colour(background, TEXT_BG, "gui.text")
  if math_type(x) ~= "integer" then x = int(x, "gui.text", 1, "x") end
  if math_type(y) ~= "integer" then y = int(y, "gui.text", 2, "y") end
  local width = text(x, y - yoff, text_string(message), text_options)
  return x + width
end

local pixel_options = { color = 0 }
local function draw_pixel(x, y, color)
  pixel_options.color = colour(color, nil, "gui.pixel")
  pixel(int(x, "gui.pixel", 1, "x"), int(y, "gui.pixel", 2, "y") - yoff, pixel_options)
end

local line_options = { color = 0 }
local function draw_line(x1, y1, x2, y2, color)
  line_options.color = colour(color, 0xFFFFFFFF, "gui.line")
  line(int(x1, "gui.line", 1, "x1"), int(y1, "gui.line", 2, "y1") - yoff, int(x2, "gui.line", 3, "x2"),
    int(y2, "gui.line", 4, "y2") - yoff, line_options)
end

-- r, g, b, a of the picture as composited so far (the core's frame with the scripts' drawing).
local function composited_pixel(x, y)
  x, y = int(x, "gui.getpixel", 1, "x"), int(y, "gui.getpixel", 2, "y") - yoff
  local pixels, width, height = our.frame("rgba", true)
  if not pixels or x < 0 or y < 0 or x >= width or y >= height then return 0, 0, 0, 0 end
  local at = (y * width + x) * 4 + 1
  return byte(pixels, at), byte(pixels, at + 1), byte(pixels, at + 2), 255
end

local function nearest_palette(r, g, b)
  local best, best_score = 0, math.huge
  for i, rgb in ipairs(NES_PALETTE) do
    local score = math.abs(r - (rgb >> 16)) * 66 + math.abs(g - ((rgb >> 8) & 0xFF)) * 129
      + math.abs(b - (rgb & 0xFF)) * 25
    if score < best_score then best, best_score = i - 1, score end
  end
  return best
end

local function screen_pixel(x, y)
  x, y = int(x, "emu.getscreenpixel", 1, "x"), int(y, "emu.getscreenpixel", 2, "y")
  if x < 0 or x > 255 or y < 0 or y > 239 then error("emu.getscreenpixel: bad coordinates. Use 0-255 x 0-239", 2) end
  local ok, r, g, b = pcall(our.getpixel, x, y - yoff)
  if not ok or not r then return 0, 0, 0, 254 end
  return r, g, b, nearest_palette(r, g, b)
end

local function parsecolor(value)
  local rgba = parse(value)
  if not rgba then error("gui.parsecolor: unknown colour " .. tostring(value), 2) end
  return rgba >> 24, (rgba >> 16) & 0xFF, (rgba >> 8) & 0xFF, rgba & 0xFF
end

-- One callback per FCEUX registration slot: registering replaces it (nil clears it); returns the previous one.
local function slot(name, event_name)
  local id, current = nil, nil
  return function(fn)
    if fn ~= nil and type(fn) ~= "function" then bad_argument(name, 1, "func", "function or nil", fn) end
    local previous = current
    if id then our.off(id); id = nil end
    current = fn
    if fn then id = our.on(event_name, fn) end
    return previous
  end
end

local function popup(message, kind)
  our.print(text_string(message))
  warn_once("fceux.popup",
    "gui.popup: no dialog boxes here; the message went to the console and the answer is the first button")
  if type(kind) == "string" and kind:lower():sub(1, 3) == "yes" then return "yes" end
  return "ok"
end

-- A gd truecolor image (FCEUX's format: a header, then alpha (0 = opaque), red, green, blue per pixel) of the
-- picture, FCEUX-sized: a core that crops overscan gets its missing lines back as black.
local function gdscreenshot()
  local pixels, width, height = our.frame("rgba")
  if not pixels then error("gui.gdscreenshot: the core has not drawn a frame yet", 2) end
  local pad = string.rep("\0\0\0\0", width * yoff)
  local full = height + 2 * yoff
  local header = char(0xFF, 0xFE, width >> 8, width & 0xFF, full >> 8, full & 0xFF, 1, 255, 255, 255, 255)
  return header .. pad .. pixels:gsub("(...).", "\0%1") .. pad
end

-- gui.gdoverlay([dx, dy,] gd [, sx, sy, sw, sh] [, alpha]): draws a gd image (truecolor or palette).
local new_image, draw_image = gui.new_image, gui.image
local function gdoverlay(...)
  local args, i = table.pack(...), 1
  local dx, dy = 0, 0
  if type(args[i]) == "number" then
    dx, i = int(args[i], "gui.gdoverlay", i, "dx"), i + 1
    if type(args[i]) == "number" then dy, i = int(args[i], "gui.gdoverlay", i, "dy"), i + 1 end
  end
  local data = args[i]
  if type(data) ~= "string" then bad_argument("gui.gdoverlay", i, "image", "string (a gd image)", data) end
  i = i + 1
  if #data < 11 or byte(data, 1) ~= 255 or (byte(data, 2) ~= 254 and byte(data, 2) ~= 255) then
    error("gui.gdoverlay: bad image data (not a gd image)", 2)
  end
  local truecolor = byte(data, 2) == 254
  local width, height = (byte(data, 3) << 8) | byte(data, 4), (byte(data, 5) << 8) | byte(data, 6)
  local sx, sy, sw, sh = 0, 0, width, height
  if args.n - i + 1 >= 4 then
    sx, sy = int(args[i], "gui.gdoverlay", i, "sx"), int(args[i + 1], "gui.gdoverlay", i + 1, "sy")
    sw, sh = int(args[i + 2], "gui.gdoverlay", i + 2, "sw"), int(args[i + 3], "gui.gdoverlay", i + 3, "sh")
    i = i + 4
  end
  local alpha_mul = opacity
  if type(args[i]) == "number" then alpha_mul = floor(alpha_mul * args[i]) end
  if alpha_mul <= 0 then return end
  local opac = {}
  for a = 0, 255 do
    local o = a < 128 and (255 - ((a << 1) | (a & 1))) * alpha_mul // 255 or 0
    opac[a] = o > 255 and 255 or o
  end
  if sx < 0 then sw, sx = sw + sx, 0 end
  if sy < 0 then sh, sy = sh + sy, 0 end
  if sx + sw > width then sw = width - sx end
  if sy + sh > height then sh = height - sy end
  if sw <= 0 or sh <= 0 then return end
  local start, size, palette = 12, 4, nil
  if not truecolor then
    start, size, palette = 14 + 1024, 1, {}
    for index = 0, 255 do
      local r, g, b, a = byte(data, 14 + index * 4, 17 + index * 4)
      palette[index] = char(r or 0, g or 0, b or 0, opac[a or 127])
    end
  end
  if #data < start - 1 + width * height * size then error("gui.gdoverlay: bad image data (truncated)", 2) end
  local rows = {}
  for y = sy, sy + sh - 1 do
    local from = start + (y * width + sx) * size
    local row = data:sub(from, from + sw * size - 1)
    if truecolor then
      rows[#rows + 1] = row:gsub("(.)(...)", function(a, rgb) return rgb .. char(opac[byte(a)]) end)
    else
      rows[#rows + 1] = row:gsub(".", function(c) return palette[byte(c)] end)
    end
  end
  local image, problem = new_image(sw, sh, concat(rows))
  if not image then error("gui.gdoverlay: " .. tostring(problem), 2) end
  draw_image(dx, dy - yoff, image)
end

local screenshots = 0
local function savescreenshot()
  screenshots = screenshots + 1
  local folder = our.paths().screenshots or "."
  local name = format("%s/%s-fceux-%d-%d.png", folder, (info.rom and info.rom.name) or "retrolua", our.framecount(),
    screenshots)
  return our.screenshot(name)
end

for _, name in ipairs({ "gui.box", "gui.drawbox", "gui.rect", "gui.drawrect" }) do
  def(name, "supported", box, "corners x1,y1,x2,y2; fill then outline colour (FCEUX defaults)")
end
for _, name in ipairs({ "gui.line", "gui.drawline" }) do
  def(name, "approximated", draw_line, "both ends drawn (skipfirst is ignored)")
end
for _, name in ipairs({ "gui.pixel", "gui.drawpixel", "gui.setpixel", "gui.writepixel" }) do
  def(name, "supported", draw_pixel)
end
for _, name in ipairs({ "gui.text", "gui.drawtext" }) do
  def(name, "approximated", draw_text,
    "our 6x8 font on a filled background (FCEUX: its 5x7 font with a halo); returns the end x")
end
def("gui.getpixel", "approximated", composited_pixel,
  "the composited picture (core frame and drawing so far), alpha 255")
def("emu.getscreenpixel", "approximated", screen_pixel,
  "the core's picture; the palette index is the nearest 2C02 colour")
def("gui.parsecolor", "supported", parsecolor)
def("gui.opacity", "supported", function(level) set_opacity(floor((tonumber(level) or 1) * 255)) end)
def("gui.transparency", "supported", function(level) set_opacity(floor((4 - (tonumber(level) or 0)) / 4 * 255)) end)
def("gui.register", "supported", slot("gui.register", "draw"), "called before each frame is shown")
def("gui.popup", "approximated", popup, "printed to the console; returns \"ok\" (\"yes\" for yes/no questions)")
def("input.popup", "approximated", popup, "as gui.popup")
def("gui.savescreenshot", "supported", savescreenshot, "a PNG in the screenshots folder")
def("gui.savescreenshotas", "supported", function(path) return our.screenshot(to_write(tostring(path))) end)
def("gui.gdscreenshot", "approximated", gdscreenshot,
  "the core's picture; lines a core crops (nestopia: 8 top and bottom) black")
if new_image then
  def("gui.gdoverlay", "supported", gdoverlay, "gd strings (from gui.gdscreenshot or gd's gdStr), truecolor or palette")
  def("gui.drawimage", "supported", gdoverlay, "as gui.gdoverlay")
  def("gui.image", "supported", gdoverlay, "as gui.gdoverlay")
else
  def("gui.gdoverlay", "unsupported", nil, "this build has no gui.new_image")
end

------------------------------------------------------------------------------------------------------------------
-- emu (and FCEU, its old name)

local function script_folder()
  if type(script_dir) == "string" then return script_dir end
  for level = 2, 12 do
    local frame = debug.getinfo(level, "S")
    if not frame then break end
    local source = frame.source
    if type(source) == "string" and source:sub(1, 1) == "@" and not source:find("compat/fceux.lua", 1, true) then
      return source:sub(2):match("^(.*)/[^/]*$") or "."
    end
  end
  return "."
end

local SPEEDS = { normal = 1, nothrottle = 0, turbo = 0, maximum = 0 }

def("emu.frameadvance", "supported", emu.frameadvance)
def("emu.framecount", "supported", emu.framecount)
def("emu.lagcount", "supported", emu.lagcount)
def("emu.lagged", "supported", emu.islagged)
def("emu.paused", "supported", emu.paused)
def("emu.pause", "supported", emu.pause, "headless runs are never paused")
def("emu.unpause", "supported", emu.unpause)
def("emu.emulating", "supported", function() return info.rom ~= nil end)
def("emu.registerbefore", "supported", slot("emu.registerbefore", "frame_start"), "before the frame is emulated")
def("emu.registerafter", "supported", slot("emu.registerafter", "frame_end"), "after the frame is emulated")
def("emu.registerexit", "supported", slot("emu.registerexit", "exit"))
def("emu.softreset", "supported", function() return our.reset() end)
def("emu.poweron", "supported", function() return our.power() end)
def("emu.message", "supported", function(message) our.message(text_string(message)) end, "on screen; stderr headless")
def("emu.print", "supported", print)
def("print", "supported", print, "tab-separated; tables print as their address")
def("tostring", "approximated", tostring, "Lua's own: tables show their address, not their contents")
def("emu.exit", "supported", emu.exit)
def("emu.speedmode", "approximated", function(mode)
  local speed = type(mode) == "string" and SPEEDS[mode:lower()]
  if not speed then
    error("emu.speedmode: invalid mode " .. tostring(mode) .. " (normal, nothrottle, turbo, maximum)", 2)
  end
  if speed == 0 then
    warn_once("fceux.speedmode", "emu.speedmode: turbo and maximum run unthrottled; every frame is still drawn")
  end
  our.speed(speed)
end, "normal = real time; nothrottle, turbo and maximum = unthrottled")
def("emu.setrenderplanes", "approximated", function()
  warn_once("fceux.renderplanes", "emu.setrenderplanes: the core draws every plane (libretro has no control over them)")
end, "warns once; the core draws every plane")
def("emu.getdir", "approximated", script_folder, "the script's folder (FCEUX: the emulator's)")
def("emu.loadrom", "unsupported", nil, "content is chosen on the command line")
def("emu.setlagflag", "unsupported", nil, "the lag flag is the emulator's (frames the core never polled input)")
def("emu.debuggerloop", "unsupported", nil, "there is no debugger")
def("emu.debuggerloopstep", "unsupported", nil, "there is no debugger")
def("emu.exec_count", "unsupported", nil, "libretro cores report no executed addresses")
def("emu.exec_time", "unsupported", nil, "libretro cores report no executed addresses")
def("emu.addgamegenie", "approximated", function(code)
  return our.add_code(tostring(code), { description = "Game Genie " .. tostring(code) }) ~= nil
end, "the core applies the code (nestopia: Game Genie)")
def("emu.delgamegenie", "approximated", function(code)
  for _, cheat in ipairs(our.cheat_list()) do
    if cheat.code == code then return our.cheat_remove(cheat.id) end
  end
  return false
end, "removes a code added by emu.addgamegenie")
def("emu.readonly", "supported", function() return our.movie_readonly() end)
def("emu.setreadonly", "supported", function(on) our.movie_readonly(on and true or false) end)
compat.define("FCEU", emu)

------------------------------------------------------------------------------------------------------------------
-- joypad: FCEUX's names; set: true presses, false releases, a string ("invert") inverts, nil leaves.

local BUTTONS = { A = "a", B = "b", select = "select", start = "start", up = "up", down = "down", left = "left",
  right = "right" }
local joy_get, joy_set = our.joy_get, our.joy_set

local function port_of(port, name)
  port = int(port == nil and 1 or port, name, 1, "port")
  if port < 1 or port > 4 then error(format("%s: invalid port %d (valid range 1-4)", name, port), 3) end
  return port
end

local function joy_read(report_up, report_down, name)
  return function(port)
    local state = joy_get(port_of(port, name))
    local result = {}
    for fceux_name, our_name in pairs(BUTTONS) do
      local pressed = state[our_name] == true
      if (pressed and report_down) or (not pressed and report_up) then result[fceux_name] = pressed end
    end
    return result
  end
end

local override = {}
local function joy_write(name)
  return function(port, buttons)
    port = port_of(port, name)
    if type(buttons) ~= "table" then bad_argument(name, 2, "buttons", "table", buttons) end
    local held
    for fceux_name, our_name in pairs(BUTTONS) do
      local value = buttons[fceux_name]
      if value == nil then value = buttons[our_name] end
      if value == nil then value = buttons[our_name:sub(1, 1):upper() .. our_name:sub(2)] end
      if type(value) == "string" then
        held = held or joy_get(port)
        override[our_name] = not held[our_name]
      elseif value == nil then
        override[our_name] = nil
      else
        override[our_name] = value and true or false
      end
    end
    joy_set(port, override)
  end
end

def("joypad.get", "supported", joy_read(true, true, "joypad.get"), "every button as of the last input poll")
def("joypad.read", "supported", joy_read(true, true, "joypad.read"))
def("joypad.getdown", "supported", joy_read(false, true, "joypad.getdown"))
def("joypad.readdown", "supported", joy_read(false, true, "joypad.readdown"))
def("joypad.getup", "supported", joy_read(true, false, "joypad.getup"))
def("joypad.readup", "supported", joy_read(true, false, "joypad.readup"))
def("joypad.getimmediate", "approximated", joy_read(true, true, "joypad.getimmediate"), "the last input poll's buttons")
def("joypad.readimmediate", "approximated", joy_read(true, true, "joypad.readimmediate"),
  "the last input poll's buttons")
def("joypad.set", "approximated", joy_write("joypad.set"),
  "next frame; \"invert\" inverts the buttons of the last poll; lower-case names accepted too")
def("joypad.write", "approximated", joy_write("joypad.write"), "as joypad.set")

------------------------------------------------------------------------------------------------------------------
-- savestate: FCEUX objects over our slots, files and in-memory states; registersave/registerload carry the
-- callback's values in the state (savestate.data).

local STATE = {}
local state_meta = { __metatable = "FCEU Savestate", __index = STATE, __name = "FCEU Savestate" }
local DATA_KEY = "compat.fceux.registersave"
local save_callback, load_callback
local script_saving = false

local function new_state(which, numbering, name)
  local object = {}
  if which == nil then
    object.anonymous = true
  elseif type(which) == "number" then
    which = int(which, name, 1, "slot")
    if which < 1 or which > 10 then error(format("%s: invalid player's savestate %d", name, which), 3) end
    object.slot = numbering == "object" and which % 10 or which - 1
  elseif type(which) == "string" then
    object.path = which
  else
    bad_argument(name, 1, "which", "slot number, path or nil", which)
  end
  return setmetatable(object, state_meta)
end

local function check_state(object, name)
  if getmetatable(object) ~= "FCEU Savestate" then
    error(name .. ": bad argument #1 (savestate object from savestate.create or savestate.object expected)", 3)
  end
  return object
end

local function store_callback_values(slot_number)
  if not save_callback then return end
  local values = table.pack(save_callback(slot_number))
  local ok, problem = pcall(our.state_data, DATA_KEY, values)
  if not ok then
    warn_once("fceux.savedata", "savestate.registersave: the callback's values cannot be stored: " .. tostring(problem))
  end
end

local function save_object(object)
  check_state(object, "savestate.save")
  store_callback_values(object.slot)
  script_saving = true
  local ok, message
  if object.anonymous then
    ok = object.state and object.state:save()
    if not ok then object.state, ok = our.state_create(), true end
  else
    ok, message = our.state_save(object.slot or to_write(object.path))
  end
  script_saving = false
  if not ok then our.warn("savestate.save: " .. tostring(message)) end
  return ok, message
end

local function load_object(object)
  check_state(object, "savestate.load")
  local ok, message
  if object.anonymous then
    if not object.state then return nil, "savestate.load: this savestate object was never saved" end
    ok, message = object.state:load()
  else
    ok, message = our.state_load(object.slot or to_read(object.path))
  end
  if not ok then our.warn("savestate.load: " .. tostring(message)) end
  return ok, message
end

-- Registered only while the script has a registersave/registerload callback: a host callback keeps a script
-- running, and FCEUX ends a script whose main chunk returns without having registered one of its own.
local state_hooks = {}
local function on_saved(slot_or_path)
  if not script_saving and save_callback then
    warn_once("fceux.savehook", "savestate.registersave: for saves made outside the script, the callback runs after"
      .. " the save (its values go with the next one)")
    store_callback_values(slot_or_path)
  end
end
local function on_loaded(slot_or_path)
  if not load_callback then return end
  local values = our.state_data(DATA_KEY)
  if type(values) == "table" then
    load_callback(slot_or_path, table.unpack(values, 1, values.n or #values))
  else
    load_callback(slot_or_path)
  end
end
local function hook_state(event_name, fn, wanted)
  if wanted and not state_hooks[event_name] then
    state_hooks[event_name] = our.on(event_name, fn)
  elseif not wanted and state_hooks[event_name] then
    our.off(state_hooks[event_name])
    state_hooks[event_name] = nil
  end
end

def("savestate.create", "supported", function(which) return new_state(which, "create", "savestate.create") end,
  "nil: in memory; 1-10: slots 0-9; a string: a file")
def("savestate.object", "supported", function(which) return new_state(which, "object", "savestate.object") end,
  "as savestate.create with 1-9 = slots 1-9, 10 = slot 0")
def("savestate.save", "supported", save_object)
def("savestate.load", "supported", load_object)
def("savestate.persist", "approximated", function(object)
  check_state(object, "savestate.persist")
end, "slot and file objects are on disk already; in-memory ones stay in memory")
-- registersave / registerload take a function, or nil to remove theirs; the event is hooked only while one is set.
local function check_state_callback(fname, fn, event_name, handler)
  if fn ~= nil and type(fn) ~= "function" then bad_argument(fname, 1, "func", "function or nil", fn, 1) end
  hook_state(event_name, handler, fn ~= nil)
end
def("savestate.registersave", "supported", function(fn)
  check_state_callback("savestate.registersave", fn, "state_saved", on_saved)
  local previous = save_callback
  save_callback = fn
  return previous
end, "its return values are stored in the state and passed to the registerload callback")
def("savestate.registerload", "supported", function(fn)
  check_state_callback("savestate.registerload", fn, "state_loaded", on_loaded)
  local previous = load_callback
  load_callback = fn
  return previous
end)
def("savestate.loadscriptdata", "unsupported", nil,
  "a state's script data is read when it is loaded (savestate.registerload)")

------------------------------------------------------------------------------------------------------------------
-- movie

local MODES = { record = "record", play = "playback", finished = "finished" }

local function movie_active() return MODES[our.movie_mode()] ~= nil end
local function require_movie(name)
  if not movie_active() then error(name .. ": No movie loaded.", 3) end
  return our.movie_info() or {}
end
local function basename(path) return (tostring(path):match("([^/\\]*)$")) end

def("movie.active", "supported", movie_active)
def("movie.mode", "supported", function() return MODES[our.movie_mode()] end,
  "\"record\", \"playback\", \"finished\" or nil")
def("movie.recording", "supported", function() return our.movie_mode() == "record" end)
def("movie.playing", "supported",
  function() local mode = our.movie_mode() return mode == "play" or mode == "finished" end)
def("movie.framecount", "supported", function()
  if movie_active() then return our.movie_frame() end
  return our.framecount()
end)
def("movie.length", "supported", function() require_movie("movie.length") return our.movie_length() end)
def("movie.rerecordcount", "supported",
  function() require_movie("movie.rerecordcount") return our.movie_rerecords() end)
def("movie.rerecordcounting", "supported", function(skip) our.movie_counting(not skip) end,
  "true: state loads count no rerecords")
for _, name in ipairs({ "movie.getname", "movie.name" }) do
  def(name, "supported", function() return tostring(require_movie(name).path) end)
end
def("movie.filename", "supported", function() return basename(require_movie("movie.filename").path) end)
for _, name in ipairs({ "movie.readonly", "movie.getreadonly" }) do
  def(name, "supported", function() return our.movie_readonly() end)
end
def("movie.setreadonly", "supported", function(on) our.movie_readonly(on and true or false) end)
for _, name in ipairs({ "movie.stop", "movie.close" }) do
  def(name, "supported", function() require_movie(name) return our.movie_stop() end)
end
for _, name in ipairs({ "movie.play", "movie.playback", "movie.load" }) do
  def(name, "approximated", function(path, read_only)
    if type(path) ~= "string" then bad_argument(name, 1, "filename", "string", path) end
    return our.movie_play(to_read(path), { readonly = read_only and true or false }) == true
  end, "pauseframe is ignored")
end
for _, name in ipairs({ "movie.replay", "movie.playbeginning" }) do
  def(name, "supported", function()
    local header = require_movie(name)
    return our.movie_play(header.path, { readonly = our.movie_readonly() }) == true
  end)
end
def("movie.record", "supported", function(path, save_type, author)
  if type(path) ~= "string" then bad_argument("movie.record", 1, "filename", "string", path) end
  return our.movie_record(to_write(path), { from = save_type == 1 and "now" or "power", author = author })
    == true
end, "save_type 1 = from now, else from power-on")
def("movie.save", "supported", function(path) return our.movie_save(to_write(path)) end)
def("movie.ispoweron", "supported", function() return movie_active() and (our.movie_info() or {}).start == "power" end)
def("movie.isfromsavestate", "supported",
  function() return movie_active() and (our.movie_info() or {}).start == "state" end)

------------------------------------------------------------------------------------------------------------------
-- input: FCEUX's key names over our host devices.

local KEY_NAMES = {
  ["return"] = "enter", leftshift = "shift", rightshift = "shift", leftctrl = "control", rightctrl = "control",
  leftalt = "alt", rightalt = "alt", numlockclear = "numlock", [";"] = "semicolon", ["="] = "plus", [","] = "comma",
  ["-"] = "minus", ["."] = "period", ["/"] = "slash", ["`"] = "tilde", ["["] = "leftbracket", ["\\"] = "backslash",
  ["]"] = "rightbracket", ["'"] = "quote",
}

local function fceux_key(name)
  local compact = name:lower():gsub(" ", "")
  if KEY_NAMES[compact] then return KEY_NAMES[compact] end
  if #compact == 1 and compact:match("%a") then return compact:upper() end
  local f = compact:match("^f(%d%d?)$")
  if f then return "F" .. f end
  local keypad = compact:match("^keypad(.)$")
  if keypad then return "numpad" .. keypad end
  return compact
end

local function input_get()
  local result = {}
  for name, held in pairs(our.keys()) do
    if held then result[fceux_key(name)] = true end
  end
  local mouse = our.mouse()
  local emu_w, emu_h = our.surface_size("emu")
  local hud_w, hud_h = our.surface_size("hud")
  local sx = (hud_w and hud_w > 0) and emu_w / hud_w or 1
  local sy = (hud_h and hud_h > 0) and emu_h / hud_h or 1
  result.xmouse = floor((mouse.x or 0) * sx)
  result.ymouse = floor((mouse.y or 0) * sy) + yoff
  result.leftclick = mouse.left or nil
  result.rightclick = mouse.right or nil
  result.middleclick = mouse.middle or nil
  result.click = (mouse.left and 1 or 0) | (mouse.right and 2 or 0)
  return result
end

def("input.get", "approximated", input_get, "keys by FCEUX's names; the mouse scaled from window to game pixels")
-- FCEUX's zapper is the mouse: its position in NES pixels and the left button as the trigger.
def("zapper.read", "approximated", function()
  local mouse = input_get()
  return { x = mouse.xmouse, y = mouse.ymouse, fire = mouse.leftclick and 1 or 0 }
end, "the mouse, as FCEUX drives the zapper (the game's lightgun port is not bound)")
def("input.read", "approximated", input_get, "as input.get")
def("input.openfilepopup", "unsupported", nil, "no file dialogs")
def("input.savefilepopup", "unsupported", nil, "no file dialogs")

------------------------------------------------------------------------------------------------------------------
-- rom: the ROM file's bytes (iNES offsets, header included).

local rom_bytes, rom_problem
local function rom_data()
  if rom_bytes or rom_problem then return rom_bytes, rom_problem end
  local path = info.rom and info.rom.path
  local file, message = nil, "no content is loaded"
  if path then file, message = io.open(path, "rb") end
  if not file then
    rom_problem = "cannot read the ROM file (" .. tostring(message) .. ")"
    return nil, rom_problem
  end
  rom_bytes = file:read("a") or ""
  file:close()
  return rom_bytes
end

local function rom_byte(offset, name)
  offset = int(offset, name, 1, "offset")
  local data, problem = rom_data()
  if not data then error(name .. ": " .. problem, 3) end
  local value = byte(data, offset + 1)
  if not value then error(format("%s: offset %d is outside the ROM (%d bytes)", name, offset, #data), 3) end
  return value
end

def("rom.getfilename", "supported", function() return info.rom and info.rom.name end, "the file name without extension")
def("rom.readbyte", "supported", function(offset) return rom_byte(offset, "rom.readbyte") end,
  "from the ROM file (--allow-files if it is outside the script's folder)")
def("rom.readbyteunsigned", "supported", function(offset) return rom_byte(offset, "rom.readbyteunsigned") end)
def("rom.readbytesigned", "supported", function(offset)
  local value = rom_byte(offset, "rom.readbytesigned")
  return value >= 0x80 and value - 0x100 or value
end)
def("rom.readbyterange", "supported", function(offset, length)
  offset, length = int(offset, "rom.readbyterange", 1, "offset"), int(length, "rom.readbyterange", 2, "length")
  local data, problem = rom_data()
  if not data then error("rom.readbyterange: " .. problem, 2) end
  if length <= 0 then return "" end
  return data:sub(offset + 1, offset + length)
end)
def("rom.writebyte", "unsupported", nil, "the core owns the loaded ROM")

-- MD5 (RFC 1321) of a string, as 16 bytes: FCEUX identifies a game by the MD5 of its PRG and CHR ROM.
local MD5_K, MD5_S = {}, { 7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21 }
for i = 0, 63 do MD5_K[i] = floor(math.abs(math.sin(i + 1)) * 2 ^ 32) & 0xFFFFFFFF end
local function md5(message)
  local length = #message
  message = message .. "\128" .. string.rep("\0", (55 - length) % 64) .. string.pack("<I8", length * 8)
  local a0, b0, c0, d0 = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476
  local words = {}
  for chunk = 1, #message, 64 do
    for i = 1, 16 do words[i] = string.unpack("<I4", message, chunk + (i - 1) * 4) end
    local a, b, c, d = a0, b0, c0, d0
    for i = 0, 63 do
      local f, g
      if i < 16 then f, g = (b & c) | (~b & d), i
      elseif i < 32 then f, g = (d & b) | (~d & c), (5 * i + 1) % 16
      elseif i < 48 then f, g = b ~ c ~ d, (3 * i + 5) % 16
      else f, g = c ~ (b | ~d), (7 * i) % 16 end
      f = (f + a + MD5_K[i] + words[g + 1]) & 0xFFFFFFFF
      local s = MD5_S[(i // 16) * 4 + i % 4 + 1]
      a, d, c = d, c, b
      b = (b + (((f << s) | (f >> (32 - s))) & 0xFFFFFFFF)) & 0xFFFFFFFF
    end
    a0, b0, c0, d0 = (a0 + a) & 0xFFFFFFFF, (b0 + b) & 0xFFFFFFFF, (c0 + c) & 0xFFFFFFFF, (d0 + d) & 0xFFFFFFFF
  end
  return string.pack("<I4I4I4I4", a0, b0, c0, d0)
end

local BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(data)
  local out = {}
  for i = 1, #data, 3 do
    local a, b, c = byte(data, i, i + 2)
    local n = (a << 16) | ((b or 0) << 8) | (c or 0)
    for k = 0, 3 do
      if k <= 1 or (k == 2 and b) or (k == 3 and c) then
        local v = (n >> (18 - 6 * k)) & 63
        out[#out + 1] = BASE64:sub(v + 1, v + 1)
      else
        out[#out + 1] = "="
      end
    end
  end
  return concat(out)
end

def("rom.gethash", "supported", function(kind)
  if type(kind) ~= "string" then bad_argument("rom.gethash", 1, "type", "string", kind) end
  local data, problem = rom_data()
  if not data then error("rom.gethash: " .. problem, 2) end
  local skip = 0
  if data:sub(1, 4) == "NES\26" then skip = 16 + ((byte(data, 7) & 4 ~= 0) and 512 or 0) end
  local digest = md5(data:sub(skip + 1))
  if kind:lower() == "md5" then return (digest:gsub(".", function(c) return format("%02x", byte(c)) end)) end
  if kind:lower() == "base64" then return "base64:" .. base64(digest) end
  return ""
end, "MD5 of the PRG and CHR ROM (\"md5\" hex, \"base64\"), from the ROM file")

-- auxlib is FCEUX's loader of the iup GUI toolkit, which many scripts require at the top whether they open a dialog
-- or not: it loads here, and what a dialog needs (iup.*) fails naming the function.
local no_gui = "Retrolua has no GUI toolkit (iup dialogs)"
local iup = setmetatable({}, { __index = function(_, key)
  error(format("iup.%s: not available in Retrolua (%s)", tostring(key), no_gui), 2)
end })
compat.record(LAYER, "require \"auxlib\"", "approximated", "loads (dialogs = 0, handles = {}); iup.* fail naming the "
  .. "function: " .. no_gui)
package.preload.auxlib = function()
  rawset(_G, "dialogs", rawget(_G, "dialogs") or 0)
  rawset(_G, "handles", rawget(_G, "handles") or {})
  rawset(_G, "iup", iup)
  return true
end

-- FCEUX's Windows builds ship GUI and image modules; here they fail with a reason.
for _, name in ipairs({ "gd", "iuplua", "iup", "iupluacontrols", "winapi", "cdlua", "imlua" }) do
  compat.record(LAYER, "require \"" .. name .. "\"", "unsupported", "a Windows GUI or image module")
  package.preload[name] = function()
    error(format("require(%q): FCEUX's Windows module %s is not available in Retrolua (no GUI toolkits or gd images)",
      name, name), 3)
  end
end

------------------------------------------------------------------------------------------------------------------
-- What a libretro host has not: clear errors.

def("zapper.set", "unsupported", nil,
  "Retrolua has no light gun input to drive (libretro's lightgun device is not bound)")
def("ppu.readbyte", "unsupported", nil, "the core does not expose the PPU's memory")
def("ppu.readbyterange", "unsupported", nil, "the core does not expose the PPU's memory")
def("sound.get", "unsupported", nil, "the core does not expose the APU's channel state")
for _, name in ipairs({ "hitbreakpoint", "getcyclescount", "getinstructionscount", "resetcyclescount",
  "resetinstructionscount", "getsymboloffset" }) do
  def("debugger." .. name, "unsupported", nil, "there is no CPU debugger (libretro cores do not expose one)")
end
for _, name in ipairs({ "docdlogger", "savecdlogfile", "savecdlogfileas", "loadfile", "loadcdlog", "resetcdlog",
  "startcdlogging", "pausecdlogging" }) do
  def("cdlog." .. name, "unsupported", nil, "there is no code/data logger")
end
------------------------------------------------------------------------------------------------------------------
-- taseditor: FCEUX's TAS Editor calls over our tastudio module (docs/guides/tas.md, "The TAS editor").
-- Markers are numbered in frame order from 1, as FCEUX numbers them; input is FCEUX's mask (A=1 B=2 select=4
-- start=8 up=16 down=32 left=64 right=128).

local T = tastudio
local FCEUX_BITS = { { 1, "a" }, { 2, "b" }, { 4, "select" }, { 8, "start" }, { 16, "up" }, { 32, "down" },
  { 64, "left" }, { 128, "right" } }
local RETRO_BIT = { b = 0, select = 2, start = 3, up = 4, down = 5, left = 6, right = 7, a = 8 }
local queued = {}

local function frame_of(value, name)
  local frame = int(value, name, 1, "frame")
  if frame < 0 then error(format("%s: bad argument #1 'frame' (must be 0 or more)", name), 3) end
  return frame
end
local function marker_list() return T.markers() end
-- The id (1-based, in frame order) of the last marker at or before `frame`; 0 when there is none.
local function marker_id(frame)
  local id = 0
  for index, marker in ipairs(marker_list()) do
    if marker.frame <= frame then id = index end
  end
  return id
end

def("taseditor.engaged", "supported", function() return T.engaged() end, "whether the TAS editor shows the movie")
def("taseditor.registerauto", "supported", function(fn)
  if type(fn) ~= "function" then bad_argument("taseditor.registerauto", 1, "func", "function", fn) end
  our.on("frame_end", function() if T.engaged() then fn() end end)
end, "after every frame while the editor is shown")
def("taseditor.registermanual", "unsupported", nil,
  "the editor has no Run function button; bind a key with event.on(\"key_down\")")
def("taseditor.markedframe", "supported", function(frame)
  return T.marker(frame_of(frame, "taseditor.markedframe")) ~= nil
end)
def("taseditor.getmarker", "supported", function(frame) return marker_id(frame_of(frame, "taseditor.getmarker")) end,
  "markers are numbered in frame order from 1")
def("taseditor.setmarker", "supported", function(frame)
  frame = frame_of(frame, "taseditor.setmarker")
  if T.marker(frame) == nil then T.set_marker(frame, "") end
  return marker_id(frame)
end)
def("taseditor.removemarker", "supported",
  function(frame) T.remove_marker(frame_of(frame, "taseditor.removemarker")) end)
def("taseditor.getnote", "supported", function(id)
  local marker = marker_list()[int(id, "taseditor.getnote", 1, "index")]
  return marker and marker.note or ""
end)
def("taseditor.setnote", "supported", function(id, note_text)
  local marker = marker_list()[int(id, "taseditor.setnote", 1, "index")]
  if marker then T.set_marker(marker.frame, tostring(note_text or "")) end
end)
def("taseditor.getcurrentbranch", "approximated", function() return 0 end,
  "branches are named (movie.branches): always 0")
def("taseditor.getrecordermode", "approximated", function() return "All" end, "always \"All\"")
def("taseditor.getsuperimpose", "approximated", function() return 0 end, "always 0 (no superimpose)")
def("taseditor.getlostplayback", "approximated", function() return -1 end, "always -1: seeking restores at once")
def("taseditor.getplaybacktarget", "approximated", function() return -1 end, "always -1: seeking finishes at once")
def("taseditor.setplayback", "supported", function(frame)
  local ok, problem = T.seek(math.min(frame_of(frame, "taseditor.setplayback"), T.length()))
  if not ok then error("taseditor.setplayback: " .. tostring(problem), 2) end
end, "seeks through the greenzone at once")
def("taseditor.stopseeking", "supported", function() end, "nothing to stop: seeking finishes at once")
def("taseditor.getselection", "supported", function()
  local frames = T.selection()
  if #frames == 0 then return nil end
  return frames
end)
def("taseditor.setselection", "supported", function(frames)
  if frames == nil then return T.set_selection({}) end
  if type(frames) ~= "table" then bad_argument("taseditor.setselection", 1, "frames", "table", frames) end
  T.set_selection(frames)
end)
def("taseditor.getinput", "supported", function(frame, joypad_number)
  frame = frame_of(frame, "taseditor.getinput")
  local port = int(joypad_number, "taseditor.getinput", 2, "joypad")
  if port < 1 or port > 4 then return -1 end
  local mask = T.get_mask(frame, port)
  if mask == nil then return -1 end
  local result = 0
  for _, pair in ipairs(FCEUX_BITS) do
    if mask & (1 << RETRO_BIT[pair[2]]) ~= 0 then result = result | pair[1] end
  end
  return result
end, "joypads 1-4 as FCEUX's mask; -1 outside the movie")
def("taseditor.submitinputchange", "supported", function(frame, joypad_number, input_mask)
  frame = frame_of(frame, "taseditor.submitinputchange")
  local port = int(joypad_number, "taseditor.submitinputchange", 2, "joypad")
  local fceux = int(input_mask, "taseditor.submitinputchange", 3, "input")
  if port < 1 or port > 4 then return end
  local mask = 0
  for _, pair in ipairs(FCEUX_BITS) do
    if fceux & pair[1] ~= 0 then mask = mask | (1 << RETRO_BIT[pair[2]]) end
  end
  queued[#queued + 1] = function() return T.set_input(frame, port, mask) end
end, "applied by applyinputchanges")
def("taseditor.submitinsertframes", "supported", function(frame, count)
  frame = frame_of(frame, "taseditor.submitinsertframes")
  count = int(count, "taseditor.submitinsertframes", 2, "number")
  if count > 0 then queued[#queued + 1] = function() return T.insert(frame, count) end end
end)
def("taseditor.submitdeleteframes", "supported", function(frame, count)
  frame = frame_of(frame, "taseditor.submitdeleteframes")
  count = int(count, "taseditor.submitdeleteframes", 2, "number")
  if count > 0 then queued[#queued + 1] = function() return T.delete(frame, count) end end
end)
def("taseditor.applyinputchanges", "supported", function(name)
  local changes = queued
  queued = {}
  if #changes == 0 then return -1 end
  local here = T.frame()
  T.begin(name ~= nil and tostring(name) or "lua")
  for _, change in ipairs(changes) do change() end
  local first = T.apply()
  if not first then return -1 end
  if first < here then T.seek(math.min(here, T.length())) end  -- the editor's auto-restore
  return first
end, "one undo step; the earliest changed frame, or -1")
def("taseditor.clearinputchanges", "supported", function() queued = {} end)

------------------------------------------------------------------------------------------------------------------
-- FCEUX's globals and Lua 5.1 leftovers.

local function to32(x) x = int(x, "bit", 1, "x") & 0xFFFFFFFF return x >= 0x80000000 and x - 0x100000000 or x end
local function u32(x) return int(x, "bit", 1, "x") & 0xFFFFFFFF end

local bit = {}
function bit.tobit(x) return to32(x) end
function bit.bnot(x) return to32(~u32(x)) end
function bit.band(x, ...)
  local r = u32(x)
  for i = 1, select("#", ...) do r = r & u32((select(i, ...))) end
  return to32(r)
end
function bit.bor(x, ...)
  local r = u32(x)
  for i = 1, select("#", ...) do r = r | u32((select(i, ...))) end
  return to32(r)
end
function bit.bxor(x, ...)
  local r = u32(x)
  for i = 1, select("#", ...) do r = r ~ u32((select(i, ...))) end
  return to32(r)
end
function bit.lshift(x, n) return to32(u32(x) << (u32(n) & 31)) end
function bit.rshift(x, n) return to32(u32(x) >> (u32(n) & 31)) end
function bit.arshift(x, n) return to32(to32(x) >> (u32(n) & 31)) end  -- the sign is in the upper 32 bits
function bit.rol(x, n) n = u32(n) & 31 x = u32(x) return to32((x << n) | (x >> (32 - n))) end
function bit.ror(x, n) n = u32(n) & 31 x = u32(x) return to32((x >> n) | (x << (32 - n))) end
function bit.bswap(x)
  x = u32(x)
  return to32(((x & 0xFF) << 24) | ((x & 0xFF00) << 8) | ((x >> 8) & 0xFF00) | (x >> 24))
end
function bit.tohex(x, n)
  n = n == nil and 8 or int(n, "bit.tohex", 2, "n")
  local upper = n < 0
  if upper then n = -n end
  if n > 8 then n = 8 end
  return format(upper and "%08X" or "%08x", u32(x)):sub(9 - n)
end
for name, fn in pairs(bit) do def("bit." .. name, "supported", fn, "LuaBitOp: signed 32-bit results") end

local function fold(name, op, start)
  return function(...)
    local r = start
    for i = 1, select("#", ...) do r = op(r, int((select(i, ...)), name, i, "value")) end
    return r
  end
end
def("AND", "supported", fold("AND", function(a, b) return a & b end, 0xFFFFFFFF))
def("OR", "supported", fold("OR", function(a, b) return a | b end, 0))
def("XOR", "supported", fold("XOR", function(a, b) return a ~ b end, 0))
def("BIT", "supported", fold("BIT", function(a, b) return a | (1 << b) end, 0), "BIT(n, ...) = the bits n set")
def("SHIFT", "supported", function(value, shift)
  value, shift = int(value, "SHIFT", 1, "value"), int(shift, "SHIFT", 2, "shift")
  if shift < 0 then return value << -shift end
  return value >> shift
end, "positive shifts right, negative left")
def("tobitstring", "supported", function(value)
  local bits = {}
  value = int(value, "tobitstring", 1, "value")
  for i = 7, 0, -1 do bits[#bits + 1] = ((value >> i) & 1 == 1) and "1" or "0" end
  return concat(bits, "", 1, 4) .. " " .. concat(bits, "", 5, 8)
end)
def("copytable", "supported", function(t)
  if t == nil then return nil end
  if type(t) ~= "table" then bad_argument("copytable", 1, "t", "table", t) end
  local copy = {}
  for k, v in pairs(t) do copy[k] = v end
  return setmetatable(copy, getmetatable(t))
end)
def("addressof", "approximated", function(value)
  return tonumber((tostring(value):match("0x(%x+)")), 16) or 0
end, "from tostring's address")

local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do c = (c & 1 == 1) and (0xEDB88320 ~ (c >> 1)) or (c >> 1) end
  crc_table[i] = c
end
def("gethash", "supported", function(buffer, size)
  if type(buffer) ~= "string" then bad_argument("gethash", 1, "buffer", "string", buffer) end
  size = int(size or #buffer, "gethash", 2, "size")
  local crc = 0xFFFFFFFF
  for i = 1, math.min(size, #buffer) do crc = crc_table[(crc ~ byte(buffer, i)) & 0xFF] ~ (crc >> 8) end
  return to32(crc ~ 0xFFFFFFFF)
end, "CRC-32")

-- Lua 5.1 (shared with the BizHawk layer: both emulators ran Lua 5.1 for most of their scripts' lives)
compat.lua51(LAYER)

def("module", "approximated", function(name)
  if type(name) ~= "string" then bad_argument("module", 1, "name", "string", name) end
  local M = package.loaded[name]
  if type(M) ~= "table" then
    M = setmetatable({}, { __index = _G })
    package.loaded[name] = M
  end
  M._NAME, M._M, M._PACKAGE = name, M, name:match("^(.*)%.") or ""
  compat.define(name, M)
  warn_once("fceux.module",
    "module(): approximated: the module's functions stay global; the module table reads through to them")
  return M
end, "the module table falls back to the globals (Lua 5.4 cannot switch the caller's environment)")
def("getfenv", "approximated", function() return _G end, "always the globals")
def("setfenv", "approximated", function(fn, env)
  if env ~= _G then error("setfenv: not available in Lua 5.4 (only the globals can be an environment here)", 2) end
  return fn
end, "only the globals are accepted")

return compat
