-- Mesen compatibility layer (`--compat mesen`, `--script mesen:FILE`): Mesen2's Lua API (everything under `emu.`,
-- with Mesen 1's and Mesen-S's enum names too) over ours, so a script written for Mesen runs unmodified. Mesen
-- scripts register callbacks and return; they never loop. Each function is recorded in the support table.
local _, _, script_source = ...  -- the host passes the script's path, folder and text
local compat = require("compat.common")
local LAYER = "mesen"

-- Ours, kept before `emu` is replaced.
local our = {
  emu = emu, memory = memory, gui = gui, joypad = joypad, input = input, event = event, savestate = savestate,
  cheats = cheats, console = console,
}
local math_type, floor, type, tostring, error, pairs, ipairs = math.type, math.floor, type, tostring, error, pairs,
  ipairs
local format, byte = string.format, string.byte
local pcall = pcall
local warn_once, integer = compat.warn_once, compat.integer

local M = {}
rawset(_G, "emu", M)

-- Mesen's functions are emu.NAME: def installs them in M, which is the global `emu`.
local def = compat.definer(LAYER)

----------------------------------------------------------------------------------------------------------------------
-- The system
----------------------------------------------------------------------------------------------------------------------
local info = our.emu.info()
local rom = info.rom or {}
local extension = ((rom.path or ""):match("%.([%w]+)$") or ""):lower()
local systems = {
  nes = "nes", fds = "nes", unf = "nes", gb = "gb", gbc = "gb", cgb = "gb", gba = "gba", sfc = "snes", smc = "snes",
  pce = "pce", sgx = "pce", sms = "sms", gg = "sms", ws = "ws", wsc = "ws",
}
local system = systems[extension] or "nes"
local console_types = { nes = "Nes", gb = "Gameboy", gba = "Gba", snes = "Snes", pce = "PcEngine", sms = "Sms", ws = "Ws" }
-- Mesen's master clock rates (per second) and CPU clocks, for getState's approximated counters.
local clock_rates = { nes = 21477272, gb = 4194304, gba = 16777216, snes = 21477272, pce = 21477270, sms = 10738635,
  ws = 3072000 }
local cpu_rates = { nes = 1789773, gb = 4194304, gba = 16777216, snes = 3579545, pce = 7159090, sms = 3579545,
  ws = 3072000 }

----------------------------------------------------------------------------------------------------------------------
-- Enums (names as Mesen2 generates them; numbers are ours: scripts use the names)
----------------------------------------------------------------------------------------------------------------------
local function enum(names)
  local t = {}
  for i, name in ipairs(names) do t[name] = i - 1 end
  return t
end

M.eventType = enum({ "nmi", "irq", "startFrame", "endFrame", "reset", "scriptEnded", "inputPolled", "stateLoaded",
  "stateSaved", "codeBreak" })
M.eventType.spriteZeroHit = 100  -- Mesen 1
M.callbackType = enum({ "read", "write", "exec" })
M.memCallbackType = { cpuRead = 0, cpuWrite = 1, cpuExec = 2, ppuRead = 10, ppuWrite = 11 }  -- Mesen 1
M.cpuType = enum({ "snes", "spc", "necDsp", "sa1", "gsu", "cx4", "st018", "gameboy", "nes", "pce", "sms", "gba", "ws" })
M.drawSurface = enum({ "consoleScreen", "scriptHud" })
M.cheatType = enum({ "nesGameGenie", "nesProActionRocky", "nesCustom", "gbGameGenie", "gbGameShark", "snesGameGenie",
  "snesProActionReplay", "pceRaw", "pceAddress", "smsProActionReplay", "smsGameGenie" })
M.counterType = enum({ "readCount", "writeCount", "execCount", "lastReadClock", "lastWriteClock", "lastExecClock" })
M.stepType = enum({ "step", "stepOut", "stepOver", "cpuCycleStep", "ppuStep", "ppuScanline", "ppuFrame",
  "specificScanline", "runToNmi", "runToIrq" })
local main_cpu = M.cpuType[({ nes = "nes", gb = "gameboy", gba = "gba", snes = "snes", pce = "pce", sms = "sms",
  ws = "ws" })[system]]
for _, name in ipairs({ "eventType", "callbackType", "memCallbackType", "cpuType", "drawSurface", "cheatType",
  "counterType", "stepType" }) do
  compat.record(LAYER, "emu." .. name, "supported", "enum")
end

----------------------------------------------------------------------------------------------------------------------
-- Memory types → our domains. Each Mesen memory type resolves to a domain and an offset in it, per system; the
-- CPU views (`nesMemory`, `cpu`…) are our `bus`. Reads outside a type's size give 0 and writes there do nothing,
-- as in Mesen; unmapped bus addresses read 0 (warned once).
----------------------------------------------------------------------------------------------------------------------
local domain_sizes = {}
for _, d in ipairs(our.memory.domains()) do domain_sizes[d.name] = d.size end

-- name → list of candidates { domain, offset, size? }; the first whose domain exists wins.
local BUS = { { "bus", 0 } }
local regions = {
  nes = {
    Memory = BUS, InternalRam = { { "system_ram", 0 }, { "bus", 0, 0x800 } },
    WorkRam = { { "save_ram", 0 }, { "bus", 0x6000, 0x2000 } }, SaveRam = { { "save_ram", 0 }, { "bus", 0x6000, 0x2000 } },
    PrgRom = { { "bus", 0x8000, 0x8000 } }, PpuMemory = { { "video_ram", 0 } }, ChrRam = { { "video_ram", 0 } },
  },
  gb = {
    Memory = BUS, WorkRam = { { "system_ram", 0 }, { "bus", 0xC000, 0x2000 } },
    CartRam = { { "save_ram", 0 }, { "bus", 0xA000, 0x2000 } }, HighRam = { { "bus", 0xFF80, 0x7F } },
    VideoRam = { { "bus", 0x8000, 0x2000 } }, SpriteRam = { { "bus", 0xFE00, 0xA0 } }, PrgRom = { { "bus", 0, 0x8000 } },
  },
  gba = {
    Memory = BUS, IntWorkRam = { { "bus", 0x3000000, 0x8000 } }, ExtWorkRam = { { "bus", 0x2000000, 0x40000 } },
    SaveRam = { { "save_ram", 0 } }, BootRom = { { "bus", 0, 0x4000 } }, VideoRam = { { "bus", 0x6000000, 0x18000 } },
    SpriteRam = { { "bus", 0x7000000, 0x400 } }, PaletteRam = { { "bus", 0x5000000, 0x400 } },
    PrgRom = { { "bus", 0x8000000, 0x2000000 } },
  },
}
local generic = { Memory = BUS, WorkRam = { { "system_ram", 0 } }, SaveRam = { { "save_ram", 0 } },
  CartRam = { { "save_ram", 0 } }, VideoRam = { { "video_ram", 0 } } }
local prefixes = { nes = "nes", gb = "gb", gba = "gba", snes = "snes", pce = "pce", sms = "sms", ws = "ws" }

-- Every Mesen2 memory type name (per system prefix) and the Mesen 1 / Mesen-S names.
local type_names = {}
for _, prefix in ipairs({ "snes", "spc", "sa1", "necDsp", "gsu", "cx4", "st018", "gameboy", "nes", "pce", "sms", "gba",
  "ws" }) do
  type_names[#type_names + 1] = prefix .. "Memory"
  type_names[#type_names + 1] = prefix .. "Debug"
end
for _, name in ipairs({ "nesPpuMemory", "nesPpuDebug", "nesPrgRom", "nesInternalRam", "nesWorkRam", "nesSaveRam",
  "nesNametableRam", "nesMapperRam", "nesSpriteRam", "nesSecondarySpriteRam", "nesPaletteRam", "nesChrRam",
  "nesChrRom", "snesPrgRom", "snesWorkRam", "snesSaveRam", "snesVideoRam", "snesSpriteRam", "snesCgRam", "gbPrgRom",
  "gbWorkRam", "gbCartRam", "gbHighRam", "gbBootRom", "gbVideoRam", "gbSpriteRam", "gbaPrgRom", "gbaIntWorkRam",
  "gbaExtWorkRam", "gbaSaveRam", "gbaBootRom", "gbaVideoRam", "gbaSpriteRam", "gbaPaletteRam", "pcePrgRom",
  "pceWorkRam", "pceSaveRam", "pceVideoRam", "smsPrgRom", "smsWorkRam", "smsCartRam", "smsVideoRam", "wsPrgRom",
  "wsWorkRam", "wsCartRam",
  -- Mesen 1 (NES) and Mesen-S
  "cpu", "cpuDebug", "ppu", "ppuDebug", "palette", "oam", "secondaryOam", "prgRom", "chrRom", "chrRam", "workRam",
  "saveRam", "vram", "cgram", "spc", "gameboy", "gbPrgRom" }) do
  type_names[#type_names + 1] = name
end
M.memType = {}
local type_by_id = {}
for i, name in ipairs(type_names) do
  if M.memType[name] == nil then
    M.memType[name] = i - 1
    type_by_id[i - 1] = name
  end
end
compat.record(LAYER, "emu.memType", "supported",
  "enum, Mesen2, Mesen 1 and Mesen-S names; mapped onto Retrolua's domains per system")

-- The region (Memory, WorkRam…) a type name means on this system, or nil and why.
local function region_of(name)
  local old = { cpu = "Memory", cpuDebug = "Memory", gameboy = "Memory", ppu = "PpuMemory", ppuDebug = "PpuMemory",
    prgRom = "PrgRom", workRam = "WorkRam", saveRam = "SaveRam", chrRam = "ChrRam", chrRom = "ChrRom", vram = "VideoRam",
    palette = "PaletteRam", oam = "SpriteRam", secondaryOam = "SecondarySpriteRam", cgram = "CgRam", spc = "SpcMemory" }
  local region = old[name]
  if not region then
    local prefix, rest = name:match("^(%l+)(%u%w*)$")
    if not prefix then return nil end
    if rest == "Debug" then rest = "Memory" end
    if prefix == "gameboy" then prefix = "gb" end
    if prefix == "nes" and rest == "PpuDebug" then rest = "PpuMemory" end
    if prefix ~= prefixes[system] then
      return nil, name .. " is another console's memory (this is " .. console_types[system] .. ")"
    end
    region = rest
  end
  local table_ = regions[system] or generic
  return table_[region] or generic[region]
end

local specs = {}  -- memType id → { domain, offset, size }

--- The domain, offset and size of memory type `id` (default: the main CPU's memory), or an error naming `fname`.
local function spec_of(id, fname)
  if id ~= nil and type(id) ~= "number" then
    -- Mesen reads the type with a default of 0 (the CPU) when it is not a number: scripts pass `type` and work
    warn_once("mesen:memtype", fname .. ": a memory type that is not a number (" .. type(id)
      .. ") reads the CPU's memory, as Mesen does")
    id = nil
  end
  if id == nil then id = M.memType[prefixes[system] .. "Memory"] end
  local spec = specs[id]
  if spec then return spec end
  local name = type_by_id[id]
  if not name then error(format("%s: invalid memory type (%s)", fname, tostring(id)), 3) end
  local candidates, why = region_of(name)
  for _, c in ipairs(candidates or {}) do
    local size = domain_sizes[c[1]]
    if size then
      spec = { domain = c[1], offset = c[2], size = c[3] or (size - c[2]), bus = c[1] == "bus" }
      specs[id] = spec
      return spec
    end
  end
  error(format("%s: memory type %s is not available (%s)", fname, name,
    why or "the core exposes no such memory to Retrolua"), 3)
end

local read_u8, read_s8 = our.memory.read_u8, our.memory.read_s8
local read_u16, read_s16 = our.memory.read_u16_le, our.memory.read_s16_le
local read_u32, read_s32 = our.memory.read_u32_le, our.memory.read_s32_le
local write_u8, write_u16, write_u32 = our.memory.write_u8, our.memory.write_u16_le, our.memory.write_u32_le

-- A CPU-bus window backed by a RAM region, read directly (no protected call): NES $0000-$1FFF (2 KiB mirrored),
-- Game Boy $C000-$DFFF.
local window_low, window_high, window_mask, window_size, window_domain = 0, -1, 0, 0, nil
if system == "nes" and domain_sizes.system_ram == 0x800 then
  window_low, window_high, window_mask, window_size, window_domain = 0, 0x2000, 0x7FF, 0x800, "system_ram"
elseif system == "gb" and domain_sizes.system_ram == 0x2000 then
  window_low, window_high, window_mask, window_size, window_domain = 0xC000, 0xE000, 0x1FFF, 0x2000, "system_ram"
end

local function unmapped(fname)
  warn_once("mesen:unmapped", fname .. ": an address the core does not map reads as 0 (and writes are dropped)")
end

--- A reader of `width` bytes: (address, memType, signed) → value, as Mesen (0 outside the type's size).
local function reader(fname, width, unsigned, signed_)
  return function(address, memtype, signed)
    if math_type(address) ~= "integer" then address = integer(fname, 1, "address", address) end
    local spec = specs[memtype] or spec_of(memtype, fname)
    if address < 0 then error(fname .. ": address must be >= 0", 2) end
    if address + width > spec.size then return 0 end
    local fn = signed and signed_ or unsigned
    if spec.bus then
      local a = spec.offset + address
      if a >= window_low and a + width <= window_high then
        local offset = (a - window_low) & window_mask
        if offset + width <= window_size then return fn(offset, window_domain) end
      end
      local ok, value = pcall(fn, a, "bus")
      if ok then return value end
      unmapped(fname)
      return 0
    end
    return fn(spec.offset + address, spec.domain)
  end
end

local function writer(fname, width, low, high, fn)
  return function(address, value, memtype)
    if math_type(address) ~= "integer" then address = integer(fname, 1, "address", address) end
    if math_type(value) ~= "integer" then value = integer(fname, 2, "value", value) end
    local spec = specs[memtype] or spec_of(memtype, fname)
    if address < 0 then error(fname .. ": address must be >= 0", 2) end
    if low and (value < low or value > high) then error(fname .. ": value out of range", 2) end
    if address + width > spec.size then return end
    if spec.bus then
      if not pcall(fn, spec.offset + address, value & ((1 << (8 * width)) - 1), "bus") then unmapped(fname) end
      return
    end
    fn(spec.offset + address, value & ((1 << (8 * width)) - 1), spec.domain)
  end
end

def("emu.read", "supported", reader("emu.read", 1, read_u8, read_s8))
def("emu.read16", "supported", reader("emu.read16", 2, read_u16, read_s16))
def("emu.read32", "supported", reader("emu.read32", 4, read_u32, read_s32))
def("emu.write", "supported", writer("emu.write", 1, -128, 255, write_u8))
def("emu.write16", "supported", writer("emu.write16", 2, -32768, 65535, write_u16))
def("emu.write32", "supported", writer("emu.write32", 4, nil, nil, write_u32))
def("emu.readWord", "supported", M.read16, "Mesen 1 name of read16")
def("emu.writeWord", "supported", M.write16, "Mesen 1 name of write16")
def("emu.getMemorySize", "supported", function(memtype) return spec_of(memtype, "emu.getMemorySize").size end)
def("emu.getPrgRomOffset", "warned", function(address)
  address = integer("emu.getPrgRomOffset", 1, "address", address)
  if address < 0x8000 or address > 0xFFFF then return -1 end
  return address - 0x8000
end, "the CPU address minus $8000 (no mapper information)")

----------------------------------------------------------------------------------------------------------------------
-- Event callbacks → our events. Frame-based where libretro has no finer hook (nmi, irq: once per frame, at the
-- frame's end, when vblank starts).
----------------------------------------------------------------------------------------------------------------------
local E = M.eventType
local our_events = {
  [E.startFrame] = "frame_start", [E.endFrame] = "frame_end", [E.nmi] = "frame_end", [E.irq] = "frame_end",
  [E.reset] = "reset", [E.scriptEnded] = "exit", [E.inputPolled] = "input", [E.stateLoaded] = "state_loaded",
  [E.stateSaved] = "state_saved",
}
local approximate_events = {
  [E.nmi] = "nmi runs once per frame when the frame ends (vblank starts): libretro has no NMI hook",
  [E.irq] = "irq runs once per frame when the frame ends: libretro has no IRQ hook",
}
local callbacks = {}  -- reference → our event id
local next_reference = 1

local function check_function(fname, n, fn)
  if type(fn) ~= "function" then
    error(format("%s: bad argument #%d 'callback' (function expected, got %s)", fname, n, type(fn)), 3)
  end
end

def("emu.addEventCallback", "supported", function(fn, kind)
  check_function("emu.addEventCallback", 1, fn)
  if kind == E.codeBreak then
    warn_once("mesen:codeBreak", "emu.addEventCallback: codeBreak never fires in Retrolua (no debugger breaks)")
  elseif kind == E.spriteZeroHit then
    error("emu.addEventCallback: spriteZeroHit is not available in Retrolua (libretro has no PPU hook)", 2)
  elseif not our_events[kind] then
    error(format("emu.addEventCallback: invalid event type (%s)", tostring(kind)), 2)
  end
  if approximate_events[kind] then warn_once("mesen:event" .. kind, "emu.addEventCallback: " .. approximate_events[kind]) end
  local reference = next_reference
  next_reference = next_reference + 1
  if our_events[kind] then
    local cpu = main_cpu
    callbacks[reference] = our.event.on(our_events[kind], function() fn(cpu) end)
  else
    callbacks[reference] = false
  end
  return reference
end, "nmi and irq: once per frame at its end (approximated); codeBreak never fires")

def("emu.removeEventCallback", "supported", function(reference)
  local id = callbacks[reference]
  if id == nil then return end
  callbacks[reference] = nil
  if id then our.event.off(id) end
end)

----------------------------------------------------------------------------------------------------------------------
-- Memory callbacks: writes are detected after each frame (our watches), once per changed address with the new
-- value; reads and execution have no hook in libretro.
----------------------------------------------------------------------------------------------------------------------
local CB = M.callbackType
local memory_callbacks = {}

def("emu.addMemoryCallback", "approximated", function(fn, kind, start, stop, _, memtype)
  check_function("emu.addMemoryCallback", 1, fn)
  start = integer("emu.addMemoryCallback", 3, "startAddress", start)
  stop = stop == nil and start or integer("emu.addMemoryCallback", 4, "endAddress", stop)
  if kind == CB.read or kind == M.memCallbackType.cpuRead or kind == M.memCallbackType.ppuRead then
    error("emu.addMemoryCallback: read callbacks are not available in Retrolua (libretro has no memory access hook)", 2)
  elseif kind == CB.exec or kind == M.memCallbackType.cpuExec then
    error("emu.addMemoryCallback: exec callbacks are not available in Retrolua (libretro has no execution hook)", 2)
  elseif kind ~= CB.write and kind ~= M.memCallbackType.cpuWrite and kind ~= M.memCallbackType.ppuWrite then
    error(format("emu.addMemoryCallback: invalid callback type (%s)", tostring(kind)), 2)
  end
  if start < 0 or stop < start then error("emu.addMemoryCallback: start address must be <= end address", 2) end
  if kind == M.memCallbackType.ppuWrite and memtype == nil then memtype = M.memType.nesPpuMemory end
  local spec = spec_of(memtype, "emu.addMemoryCallback")
  if stop >= spec.size then stop = spec.size - 1 end
  warn_once("mesen:memcb", "emu.addMemoryCallback: approximated in Retrolua (writes are seen after each frame, once "
    .. "per changed address, with the new value; the callback's return value cannot change the write)")
  local domain, first, size = spec.domain, spec.offset + start, stop - start + 1
  if spec.bus and first >= window_low and first + size <= window_high then
    -- Mirrored RAM (NES $0000-$1FFF): watched once, in the RAM region; addresses reported from `start`.
    domain, first = window_domain, (first - window_low) & window_mask
    if first + size > window_size then size = window_size - first end
  end
  local ok, ids = pcall(compat.watch_bytes, domain, first, size, function(offset, value) fn(start + offset, value) end)
  if not ok then
    error(format("emu.addMemoryCallback: $%X-$%X cannot be watched (%s)", start, stop, tostring(ids)), 2)
  end
  local reference = next_reference
  next_reference = next_reference + 1
  memory_callbacks[reference] = ids
  return reference
end, "write callbacks only, run after the frame once per changed address with the new value")

def("emu.removeMemoryCallback", "supported", function(reference)
  local ids = memory_callbacks[reference]
  if ids then
    memory_callbacks[reference] = nil
    for _, id in ipairs(ids) do our.event.off(id) end
  end
end)

----------------------------------------------------------------------------------------------------------------------
-- Drawing: Mesen colours are 0xAARRGGBB with the alpha inverted (0x00 opaque, 0xFF transparent). A shape lasts
-- `duration` frames (default 1; 0 or less: until clearScreen) from `delay` frames on (default 0).
----------------------------------------------------------------------------------------------------------------------
local gui_rect, gui_line, gui_pixel, gui_text, text_size = our.gui.rect, our.gui.line, our.gui.pixel, our.gui.text,
  our.gui.text_size
local framecount = our.emu.framecount
local shape = { color = 0, surface = "emu" }  -- reused options table: no table per call
local text_options = { color = 0, surface = "emu" }
-- Mesen draws in the whole NES frame (256x240); a core that crops the overscan (nestopia: 8 lines top and bottom)
-- shows row 8 as our row 0, so the console screen's y is shifted by the crop.
local screen_w, screen_h = our.gui.surface_size("emu")
local overscan_top = system == "nes" and screen_h < 240 and (240 - screen_h) // 2 or 0
local y_shift = overscan_top

--- Our colour from a Mesen colour, or nil when fully transparent.
local function colour(fname, c, default)
  if c == nil then c = default end
  if math_type(c) ~= "integer" then c = integer(fname, 0, "color", c, 4) end
  local alpha = 0xFF - ((c >> 24) & 0xFF)
  if alpha == 0 then return nil end
  return (alpha << 24) | (c & 0xFFFFFF)
end

local function coordinate(fname, n, what, v)
  if math_type(v) == "integer" then return v end
  return integer(fname, n, what, v, 4)
end

local function draw_rectangle(x, y, w, h, c, fill)
  if w < 0 then x, w = x + w + 1, -w end
  if h < 0 then y, h = y + h + 1, -h end
  if w == 0 or h == 0 then return end
  -- filled: one blend per pixel (no outline of the same colour over the fill's edge)
  shape.color, shape.fill = fill and 0 or c, fill and c or nil
  gui_rect(x, y, w, h, shape)
end

local function draw_line(x, y, x2, y2, c)
  shape.color, shape.fill = c, nil
  gui_line(x, y, x2, y2, shape)
end

local function draw_pixel(x, y, c)
  shape.color, shape.fill = c, nil
  gui_pixel(x, y, shape)
end

local function draw_string(x, y, text, c, bg)
  text_options.color, text_options.bg = c, bg
  gui_text(x, y, text, text_options)
end

local MAX_PENDING = 20000
local pending = {}  -- shapes drawn later or for more than one frame: { fn, a, b, c, d, e, f, start, left }
local drawer_id

local function draw_pending()
  local now, kept = framecount(), 0
  for i = 1, #pending do
    local p = pending[i]
    if p[8] <= now then
      p[1](p[2], p[3], p[4], p[5], p[6], p[7])
      p[9] = p[9] - 1
    end
    if p[9] ~= 0 then
      kept = kept + 1
      pending[kept] = p
    end
  end
  for i = #pending, kept + 1, -1 do pending[i] = nil end
end

--- Draws now (duration 1, no delay: the common case) or queues the shape for the frames it lasts.
local function submit(fname, duration, delay, fn, a, b, c, d, e, f)
  if duration == nil and delay == nil then return fn(a, b, c, d, e, f) end
  duration = duration == nil and 1 or integer(fname, 0, "duration", duration, 4)
  delay = delay == nil and 0 or integer(fname, 0, "delay", delay, 4)
  if duration == 1 and delay == 0 then return fn(a, b, c, d, e, f) end
  if not drawer_id then drawer_id = our.event.on("draw", draw_pending) end
  if #pending >= MAX_PENDING then
    warn_once("mesen:pending", fname .. ": more than " .. MAX_PENDING .. " lasting shapes; the oldest are dropped")
    local half = MAX_PENDING // 2
    table.move(pending, half + 1, #pending, 1)
    for i = #pending, #pending - half + 1, -1 do pending[i] = nil end
  end
  pending[#pending + 1] = { fn, a, b, c, d, e, f, framecount() + delay, duration > 0 and duration or -1 }
end

def("emu.drawRectangle", "supported", function(x, y, w, h, c, fill, duration, delay)
  local fname = "emu.drawRectangle"
  x, y = coordinate(fname, 1, "x", x), coordinate(fname, 2, "y", y) - y_shift
  w, h = coordinate(fname, 3, "width", w), coordinate(fname, 4, "height", h)
  c = colour(fname, c, 0xFFFFFF)
  if not c then return end
  submit(fname, duration, delay, draw_rectangle, x, y, w, h, c, fill)
end)

def("emu.drawLine", "supported", function(x, y, x2, y2, c, duration, delay)
  local fname = "emu.drawLine"
  x, y = coordinate(fname, 1, "x", x), coordinate(fname, 2, "y", y) - y_shift
  x2, y2 = coordinate(fname, 3, "x2", x2), coordinate(fname, 4, "y2", y2) - y_shift
  c = colour(fname, c, 0xFFFFFF)
  if not c then return end
  submit(fname, duration, delay, draw_line, x, y, x2, y2, c)
end)

def("emu.drawPixel", "supported", function(x, y, c, duration, delay)
  local fname = "emu.drawPixel"
  x, y = coordinate(fname, 1, "x", x), coordinate(fname, 2, "y", y) - y_shift
  c = colour(fname, c, 0xFFFFFF)
  if not c then return end
  submit(fname, duration, delay, draw_pixel, x, y, c)
end)

def("emu.drawString", "approximated", function(x, y, text, c, bg, max_width, duration, delay)
  local fname = "emu.drawString"
  x, y = coordinate(fname, 1, "x", x), coordinate(fname, 2, "y", y) - y_shift
  if type(text) ~= "string" then text = tostring(text) end
  local fg = colour(fname, c, 0xFFFFFF)
  bg = colour(fname, bg, 0)  -- Mesen's default background, 0, is opaque black once inverted
  if not fg and not bg then return end
  if max_width ~= nil and max_width ~= 0 then
    warn_once("mesen:maxWidth", "emu.drawString: maxWidth is ignored (Retrolua draws one line per \\n)")
  end
  submit(fname, duration, delay, draw_string, x, y, text, fg or 0, bg)
end, "Retrolua's 6x8 fixed font instead of Mesen's variable-width one; maxWidth ignored")

def("emu.clearScreen", "supported", function()
  for i = #pending, 1, -1 do pending[i] = nil end
  our.gui.clear("emu")
  our.gui.clear("hud")
end)

def("emu.measureString", "warned", function(text)
  if type(text) ~= "string" then text = tostring(text) end
  local w = text_size(text)
  local lines = 1
  for _ in text:gmatch("\n") do lines = lines + 1 end
  return { width = w, height = 9 * lines }
end, "measured in Retrolua's 6x8 font, 9 pixels a line as Mesen")

def("emu.selectDrawSurface", "supported", function(surface)
  local name = surface == M.drawSurface.scriptHud and "hud" or "emu"
  shape.surface, text_options.surface = name, name
  y_shift = name == "emu" and overscan_top or 0
end, "consoleScreen is the emu surface, scriptHud the hud surface (its scale is the window's)")

def("emu.getScreenSize", "supported", function()
  local w, h = our.gui.surface_size("emu")
  return { width = w, height = h + 2 * overscan_top }
end, "NES: the whole 256x240 frame, as Mesen's coordinates")

def("emu.getDrawSurfaceSize", "supported", function(surface)
  local hud = surface == M.drawSurface.scriptHud
  local w, h = our.gui.surface_size(hud and "hud" or "emu")
  local crop = hud and 0 or overscan_top
  return { width = w, height = h + 2 * crop, visibleWidth = w, visibleHeight = h,
    overscan = { top = crop, bottom = crop, left = 0, right = 0 } }
end, "NES: the whole 256x240 frame, with the core's overscan crop as overscan")

def("emu.getPixel", "supported", function(x, y)
  x, y = coordinate("emu.getPixel", 1, "x", x), coordinate("emu.getPixel", 2, "y", y) - overscan_top
  if x < 0 or y < -overscan_top or x >= screen_w or y >= screen_h + overscan_top then
    error("emu.getPixel: invalid x,y coordinates", 2)
  end
  if y < 0 or y >= screen_h then return 0xFF000000 end  -- a row the core crops away (NES overscan): black
  local r, g, b = our.gui.getpixel(x, y)
  if not r then return 0 end
  return 0xFF000000 | (r << 16) | (g << 8) | b
end, "what the core drew (0xFFRRGGBB), without scripts' drawing; NES y in the whole frame, as drawing")

--- The core's last frame as bytes (rgb), width and height.
local function frame_rgb(fname)
  local pixels, w, h = our.gui.frame("rgb")
  if not pixels then
    -- before the core's first frame Mesen's buffer is black; so is ours
    w, h = our.gui.surface_size("emu")
    if not w or w <= 0 or not h or h <= 0 then error(fname .. ": no frame yet", 3) end
    pixels = string.rep("\0", 3 * w * h)
  end
  return pixels, w, h
end

-- Mesen 1 (and Mesen2 before 2.0) numbered the screen buffer from 0, Mesen2 now from 1: a script naming Mesen 1's
-- enums or functions and none of Mesen2's (in its code, not its comments) gets the 0-based buffer; otherwise entry 0
-- repeats entry 1, so a 0-based loop never meets a nil.
local script_code = type(script_source) == "string" and compat.code_only(script_source) or ""
local function uses(patterns)
  for _, pattern in ipairs(patterns) do
    if script_code:find(pattern) then return true end
  end
  return false
end
-- Mesen 1's memory types are the NES's without a system prefix (Mesen2's all have one: nesMemory, snesWorkRam…).
local mesen1_types = { cpu = true, ppu = true, palette = true, oam = true, secondaryOam = true, prgRom = true,
  chrRom = true, chrRam = true, workRam = true, saveRam = true, cpuDebug = true, ppuDebug = true }
local function uses_mesen1_type()
  for name in script_code:gmatch("memType%.([%w_]+)") do
    if mesen1_types[name] then return true end
  end
  return false
end
local zero_based = (uses_mesen1_type() or uses({ "memCallbackType", "emu%.readWord", "emu%.writeWord",
  "spriteZeroHit", "emu%.setInput%(%s*%d" }))
  and not uses({ "callbackType%.", "memType%.nes", "memType%.snes", "memType%.gb", "memType%.pce", "memType%.sms",
  "memType%.ws", "drawSurface", "DrawSurface", "cpuType%.", "getDrawSurfaceSize", "selectDrawSurface" })

def("emu.getScreenBuffer", "supported", function()
  local pixels, w, h = frame_rgb("emu.getScreenBuffer")
  local buffer = {}
  local n = zero_based and -1 or 0
  -- NES: the whole 256x240 frame, as Mesen's coordinates; the rows the core crops are black
  for _ = 1, w * overscan_top do
    n = n + 1
    buffer[n] = 0
  end
  for i = 1, 3 * w * h, 3 do
    local r, g, b = byte(pixels, i, i + 2)
    n = n + 1
    buffer[n] = (r << 16) | (g << 8) | b
  end
  for _ = 1, w * overscan_top do
    n = n + 1
    buffer[n] = 0
  end
  if not zero_based then buffer[0] = buffer[1] end
  return buffer
end, "0x00RRGGBB per pixel, rows top to bottom, numbered from 1 (Mesen2) or, for Mesen 1 scripts, from 0; NES: "
  .. "the whole 256x240 frame with the cropped rows black")

-- Mesen's setScreenBuffer replaces the whole picture: every pixel of the buffer is drawn over the frame on the emu
-- surface (in runs of one colour), not only those that differ from the frame the script read, which would let the
-- live frame show through. Drawn at once, so the script's later shapes lie on top of it, as in Mesen.
def("emu.setScreenBuffer", "supported", function(buffer)
  if type(buffer) ~= "table" then
    error(format("emu.setScreenBuffer: bad argument #1 'screenBuffer' (table expected, got %s)", type(buffer)), 2)
  end
  local _, w, h = frame_rgb("emu.setScreenBuffer")
  local total = w * (h + 2 * overscan_top)
  -- a buffer numbered from 0 has no entry at its size
  local base = (buffer[total] == nil and buffer[0] ~= nil) and 0 or 1
  for y = 0, h - 1 do
    local i = (y + overscan_top) * w + base - 1  -- the buffer's entry before this row
    local start, run_colour = 0, nil
    for x = 0, w - 1 do
      i = i + 1
      local v = buffer[i]
      -- an entry that is not an integer (or fully transparent) leaves the frame's pixel
      local c = math_type(v) == "integer" and colour("", v, 0) or nil
      if c ~= run_colour then
        if run_colour then draw_rectangle(start, y, x - start, 1, run_colour, true) end
        start, run_colour = x, c
      end
    end
    if run_colour then draw_rectangle(start, y, w - start, 1, run_colour, true) end
  end
end, "the whole picture is replaced: drawn over the frame on the emu surface, in runs of one colour")

----------------------------------------------------------------------------------------------------------------------
-- Logging
----------------------------------------------------------------------------------------------------------------------
def("emu.log", "supported", function(text) print(tostring(text)) end, "printed on stdout (Mesen's script log)")
def("emu.displayMessage", "supported", function(category, text)
  our.emu.message("[" .. tostring(category) .. "] " .. tostring(text))
end)
def("emu.getLogWindowLog", "unsupported", nil, "Retrolua has no log window")

----------------------------------------------------------------------------------------------------------------------
-- Emulation and state
----------------------------------------------------------------------------------------------------------------------
-- Parts of Mesen's state a libretro core does not expose: reading one is a clear error, not a nil to index.
local CPU_WHY, PPU_WHY = "libretro cores expose no CPU registers", "libretro cores expose no PPU registers"
local SECTION_WHY = "libretro cores expose no APU, cartridge or coprocessor state"
local function missing(section, names, why)
  local set = {}
  for name in names:gmatch("%S+") do set[name] = true end
  return { __index = function(_, key)
    if set[key] then error(format("emu.getState: %s%s is not available in Retrolua (%s)", section, key, why), 2) end
  end }
end
local missing_ppu = missing("ppu.", "control mask status state vramAddr tmpVideoRamAddr xScroll writeToggle "
  .. "highBitShift lowBitShift spriteRamAddr bus videoRamAddr nmiScanline scanlineCount safeOamScanline", PPU_WHY)
local missing_cpu = missing("cpu.", "a x y pc sp ps status irqFlag nmiFlag dbr k d flags", CPU_WHY)
local sections = {}
for name in ("apu cart spc sa1 gsu cx4 dsp gb gba sms pce ws mapper"):gmatch("%S+") do sections[name] = SECTION_WHY end
sections.cpu, sections.ppu = CPU_WHY, PPU_WHY
-- Mesen2's own keys are flat ("apu.dmc.sampleAddr", "cpu.a"): one under a section we lack (every cpu. and ppu. key
-- but the few given) is refused like a nested one, not left a nil for the script to index or add.
local missing_state = { __index = function(_, key)
  if type(key) ~= "string" then return nil end
  local section = key:match("^([%a%d]+)%.") or key
  local why = sections[section]
  if why and (section ~= key or (key ~= "cpu" and key ~= "ppu")) then
    error(format("emu.getState: %s is not available in Retrolua (%s)", key, why), 2)
  end
end }

def("emu.getState", "approximated", function()
  local frames = framecount()
  local fps = info.fps or 60
  local master = floor(frames * clock_rates[system] / fps)
  local cycles = floor(frames * cpu_rates[system] / fps)
  local state = {
    frameCount = frames, masterClock = master, clockRate = clock_rates[system], consoleType = console_types[system],
    region = (fps < 55) and "Pal" or "Ntsc", ["ppu.frameCount"] = frames, ["cpu.cycleCount"] = cycles,
    ["ppu.scanline"] = 241, ["ppu.cycle"] = 0, lagCount = our.emu.lagcount(),
    ppu = setmetatable({ frameCount = frames, scanline = 241, cycle = 0 }, missing_ppu),
    cpu = setmetatable({ cycleCount = cycles }, missing_cpu),
  }
  return setmetatable(state, missing_state)
end, "frame count exact; clocks and cycle counts derived from frames (no CPU/PPU registers); Mesen2 flat keys "
  .. "and Mesen 1 nested ppu/cpu tables")
def("emu.setState", "unsupported", nil, "libretro exposes no CPU/PPU registers")
-- MesenCE's (and later Mesen2 builds') clock reader: the same derived count as getState().masterClock
def("emu.getMasterClock", "approximated", function()
  return floor(framecount() * clock_rates[system] / (info.fps or 60))
end, "derived from the frame count, as getState's masterClock (no cycle counter in libretro)")

def("emu.reset", "supported", function() return our.emu.reset() end)
def("emu.stop", "supported", function(code)
  our.emu.exit(code == nil and 0 or integer("emu.stop", 1, "exitCode", code))
end, "ends the run at the end of the frame with the exit code")
def("emu.breakExecution", "warned", function() our.emu.pause() end,
  "pauses a windowed run (a headless run never pauses)")
def("emu.resume", "warned", function() our.emu.unpause() end, "unpauses")
def("emu.step", "warned", function(count, kind)
  if kind ~= M.stepType.ppuFrame then
    error("emu.step: only stepType.ppuFrame is available in Retrolua (no debugger)", 3)
  end
  for _ = 1, integer("emu.step", 1, "count", count or 1) do our.emu.step() end
end, "ppuFrame steps one frame while paused; other step types need a debugger")
def("emu.rewind", "unsupported", nil, "no rewind history is kept for scripts; use Retrolua's rewind module")
def("emu.execute", "unsupported", nil, "no debugger in Retrolua")

def("emu.createSavestate", "supported", function()
  local state, message = our.savestate.create()
  if not state then error("emu.createSavestate: " .. tostring(message), 2) end
  return state:bytes()
end, "a Retrolua state as a binary string; allowed anywhere but during the input poll")
def("emu.loadSavestate", "supported", function(bytes)
  if type(bytes) ~= "string" then
    error(format("emu.loadSavestate: bad argument #1 'state' (string expected, got %s)", type(bytes)), 2)
  end
  local state = our.savestate.from_bytes(bytes)
  if not state then return false end
  return state:load() == true
end)

----------------------------------------------------------------------------------------------------------------------
-- Input
----------------------------------------------------------------------------------------------------------------------
local buttons = { "a", "b", "select", "start", "up", "down", "left", "right" }
if system ~= "nes" and system ~= "gb" and system ~= "sms" then
  for _, b in ipairs({ "x", "y", "l", "r" }) do buttons[#buttons + 1] = b end
end
local pad = {}  -- reused joypad.set table

local function port_of(fname, port)
  port = port == nil and 0 or integer(fname, 2, "port", port, 4)
  if port < 0 or port > 4 then error(fname .. ": invalid port number - must be between 0 to 4", 3) end
  return port + 1
end

-- port -> { frame = n, buttons = { … } }: what setInput gave this frame, which getInput reports, as Mesen does
local set_this_frame = {}

def("emu.getInput", "supported", function(port)
  port = port_of("emu.getInput", port)
  local state = our.joypad.get(port)
  local result = {}
  for _, b in ipairs(buttons) do result[b] = state[b] == true end
  local given = set_this_frame[port]
  if given and given.frame == framecount() then
    for name, v in pairs(given.buttons) do result[name] = v end
  end
  return result
end, "ports from 0; the buttons the core saw at its last poll")

def("emu.setInput", "supported", function(a, b)
  local state, port = a, b
  if type(a) == "number" then state, port = b, a end  -- Mesen 1: setInput(port, input)
  if type(state) ~= "table" then
    error(format("emu.setInput: bad argument #1 'input' (table expected, got %s)", type(state)), 2)
  end
  port = port_of("emu.setInput", port)
  for k in pairs(pad) do pad[k] = nil end
  local given = set_this_frame[port]
  if not given or given.frame ~= framecount() then
    given = { frame = framecount(), buttons = {} }
    set_this_frame[port] = given
  end
  for _, name in ipairs(buttons) do
    local v = state[name]
    if v ~= nil then
      pad[name] = v and true or false
      given.buttons[name] = pad[name]
    end
  end
  our.joypad.set(port, pad)
end, "buttons not given stay the player's; in an inputPolled callback it applies to this frame, else the next")

def("emu.getMouseState", "approximated", function()
  local m = our.input.mouse()
  local w, h = our.gui.surface_size("hud")
  return { x = m.x, y = m.y, relativeX = w > 0 and m.x / w or 0, relativeY = h > 0 and m.y / h or 0,
    left = m.left == true, middle = m.middle == true, right = m.right == true }
end, "window coordinates")

local key_aliases = { enter = "return", esc = "escape", ctrl = "left ctrl", shift = "left shift", alt = "left alt",
  del = "delete", ins = "insert", pgup = "pageup", pgdn = "pagedown", ["page up"] = "pageup",
  ["page down"] = "pagedown", ["left arrow"] = "left", ["right arrow"] = "right", ["up arrow"] = "up",
  ["down arrow"] = "down", ["left control"] = "left ctrl", ["right control"] = "right ctrl" }
def("emu.isKeyPressed", "supported", function(name)
  if type(name) ~= "string" or name == "" then error("emu.isKeyPressed: Invalid key name", 2) end
  local key = name:lower()
  key = key_aliases[key] or key:gsub("^numpad ?", "keypad ")
  return our.input.keys()[key] == true
end, "Mesen's key names mapped onto SDL's (lower-case; Enter is return)")

----------------------------------------------------------------------------------------------------------------------
-- Cheats, ROM, files
----------------------------------------------------------------------------------------------------------------------
local cheat_ids = {}
local T = M.cheatType
local function hex8(code) return code:match("^%x%x%x%x%x%x%x%x$") ~= nil end
-- What each code format looks like (the core decides what it applies; Mesen refuses malformed codes).
local cheat_shapes = {
  [T.nesGameGenie] = function(code) return (#code == 6 or #code == 8) and code:upper():match("^[APZLGITYEOXUKSVN]+$") end,
  [T.nesProActionRocky] = hex8, [T.gbGameShark] = hex8, [T.snesProActionReplay] = hex8,
  [T.gbGameGenie] = function(code) return code:match("^%x%x%x%-%x%x%x$") or code:match("^%x%x%x%-%x%x%x%-%x%x%x$") end,
  [T.snesGameGenie] = function(code) return code:match("^%x%x%x%x%-%x%x%x%x$") end,
}
-- Mesen 1's form: emu.addCheat(gameGenieCode), one argument (NES only)
local one_argument_cheat = { nes = M.cheatType.nesGameGenie, gb = M.cheatType.gbGameGenie,
  snes = M.cheatType.snesGameGenie }

def("emu.addCheat", "supported", function(kind, code)
  if type(kind) == "string" and code == nil then kind, code = one_argument_cheat[system], kind end
  if type(code) ~= "string" then
    error(format("emu.addCheat: bad argument #2 'cheatCode' (string expected, got %s)", type(code)), 2)
  end
  if #code > 15 then error("emu.addCheat: codes must be 15 characters or less", 2) end
  local id, message
  if kind == M.cheatType.nesCustom then
    local address, value = code:match("^(%x+):(%x+)$")
    if not address then error("emu.addCheat: invalid cheat code", 2) end
    id, message = our.cheats.add_ram({ address = tonumber(address, 16), value = tonumber(value, 16),
      domain = tonumber(address, 16) < 0x800 and "system_ram" or "bus", description = "emu.addCheat " .. code })
  else
    local known = false
    for _, v in pairs(M.cheatType) do known = known or v == kind end
    if not known then error(format("emu.addCheat: invalid cheat type (%s)", tostring(kind)), 2) end
    local shape_ = cheat_shapes[kind]
    if shape_ and not shape_(code) then error("emu.addCheat: invalid cheat code", 2) end
    id, message = our.cheats.add_code(code, { description = "emu.addCheat" })
  end
  if not id then error("emu.addCheat: invalid cheat code" .. (message and " (" .. message .. ")" or ""), 2) end
  cheat_ids[#cheat_ids + 1] = id
end, "codes the core accepts (Game Genie, Pro Action Rocky, GameShark…); nesCustom as a RAM cheat; Mesen 1's "
  .. "addCheat(code) is a Game Genie code")
def("emu.clearCheats", "supported", function()
  for i = #cheat_ids, 1, -1 do
    our.cheats.remove(cheat_ids[i])
    cheat_ids[i] = nil
  end
end, "removes the cheats the script added")

def("emu.getRomInfo", "supported", function()
  return { name = rom.name, path = rom.path, fileSha1Hash = rom.sha1 and rom.sha1:upper(), fileCrc32Hash = rom.crc32,
    format = extension:upper() }
end)

local script_path = ...
local script_name = ((script_path or "script"):match("([^/]+)$") or "script"):gsub("%.lua$", "")
def("emu.getScriptDataFolder", "supported", function()
  local relative = "LuaScriptData/" .. script_name
  our.emu.save_data(relative .. "/.retrolua", "")
  return our.emu.paths().data .. "/" .. relative
end, "the data folder's LuaScriptData/SCRIPT, created on first call")

def("emu.takeScreenshot", "supported", function()
  local path = our.emu.paths().data .. "/.mesen-screenshot.png"
  local ok, message = our.gui.screenshot(path)
  if not ok then error("emu.takeScreenshot: " .. tostring(message), 2) end
  local file = assert(io.open(path, "rb"))
  local png = file:read("a")
  file:close()
  os.remove(path)
  return png
end, "a PNG string of the frame with the emu surface's drawing")

def("emu.getLabelAddress", "unsupported", nil, "Retrolua has no debugger labels")
def("emu.convertAddress", "unsupported", nil, "Retrolua has no mapper information to convert CPU and ROM addresses")
def("emu.getAccessCounters", "unsupported", nil, "libretro has no memory access hook")
def("emu.resetAccessCounters", "unsupported", nil, "libretro has no memory access hook")
def("emu.getCdlData", "unsupported", nil, "libretro has no code/data logger")
