-- mGBA compatibility layer (`--compat mgba`, `--script mgba:FILE`): mGBA 0.10's scripting API (`emu:read8`,
-- `callbacks:add`, `console:log`, `canvas`, `image`, `util`, `storage`, the `C` constants) over ours, so a script
-- written for mGBA runs unmodified. mGBA scripts run their main chunk once and do everything in callbacks.
local compat = require("compat.common")
local LAYER = "mgba"

-- Ours, kept before the globals are replaced (mGBA reuses emu, console, input).
local our = {
  emu = emu, memory = memory, gui = gui, joypad = joypad, input = input, event = event, savestate = savestate,
  console = console,
}
local math_type, type, tostring, tonumber, error, pairs, ipairs, setmetatable, select = math.type, type, tostring,
  tonumber, error, pairs, ipairs, setmetatable, select
local format, byte, char, concat, pcall = string.format, string.byte, string.char, table.concat, pcall
local warn_once, integer = compat.warn_once, compat.integer

-- The table each name's prefix stands for ("emu" in "emu:read8", "util" in "util.newSize"): def installs a name's
-- function there. Each table is registered where it is made.
local owners = {}
local function owner(prefix, t)
  owners[prefix] = t
  return t
end
local def = compat.definer(LAYER, function(name, fn)
  local prefix, key = name:match("^(%w+)[:.]([%w_]+)$")
  local t = owners[prefix]
  t[key] = fn
end)

-- A host callback keeps a script running: each of the layer's own is registered when the script first uses what
-- needs it, so a script whose main chunk returns having asked for nothing is done (a headless run ends). Nor do
-- they keep it running later: once its main chunk has returned and it has no callback, watchpoint, held key or
-- canvas layer of its own, the layer does what its exit hooks would (text buffers printed, storage flushed) and
-- removes them all.
local helper_ids, finishers = {}, {}
local main_chunk  -- the script's main chunk, seen when it first asked for a helper
local watch_for_the_end  -- defined at the end of this file
local function lazily(event_name, fn)
  local id
  return function()
    if id then return end
    id = our.event.on(event_name, fn)
    helper_ids[#helper_ids + 1] = id
    if event_name == "exit" then finishers[#finishers + 1] = fn end
    local running, is_main = coroutine.running()
    if not is_main and not main_chunk then main_chunk = running end
    watch_for_the_end()
  end
end

----------------------------------------------------------------------------------------------------------------------
-- Constants
----------------------------------------------------------------------------------------------------------------------
local C = {
  PLATFORM = { NONE = -1, GBA = 0, GB = 1 },
  GBA_KEY = { A = 0, B = 1, SELECT = 2, START = 3, RIGHT = 4, LEFT = 5, UP = 6, DOWN = 7, R = 8, L = 9 },
  GB_KEY = { A = 0, B = 1, SELECT = 2, START = 3, RIGHT = 4, LEFT = 5, UP = 6, DOWN = 7 },
  SAVESTATE = { SCREENSHOT = 1, SAVEDATA = 2, CHEATS = 4, RTC = 8, METADATA = 16, ALL = 31 },
  CHECKSUM = { CRC32 = 0, MD5 = 1, SHA1 = 2 },
  WATCHPOINT_TYPE = { WRITE = 1, READ = 2, RW = 3, CHANGE = 4, WRITE_CHANGE = 5 },
  -- Painter:drawText's anchor: a horizontal field (bits 0-1) and a vertical one (bits 2-3), OR'd
  ALIGN = { LEFT = 1, HCENTER = 2, RIGHT = 3, HORIZONTAL = 3, BASELINE = 0, TOP = 4, VCENTER = 8, BOTTOM = 12,
    VERTICAL = 12, CENTER = 10 },
}
rawset(_G, "C", C)
compat.record(LAYER, "C", "supported",
  "PLATFORM, GBA_KEY, GB_KEY, SAVESTATE, CHECKSUM, WATCHPOINT_TYPE, ALIGN (by name: the numbers are Retrolua's)")

local info = our.emu.info()
local rom = info.rom or {}
local extension = ((rom.path or ""):match("%.([%w]+)$") or ""):lower()
local gba = extension == "gba" or (info.width == 240 and info.height == 160)
local platform = gba and C.PLATFORM.GBA or C.PLATFORM.GB

----------------------------------------------------------------------------------------------------------------------
-- Memory: emu:read8… on the CPU bus; emu.memory.NAME domains at mGBA's bases. Unmapped addresses read 0 (warned
-- once): mGBA returns open-bus values there.
----------------------------------------------------------------------------------------------------------------------
local mem = our.memory
local read_u8, read_u16, read_u32 = mem.read_u8, mem.read_u16_le, mem.read_u32_le
local write_u8, write_u16, write_u32 = mem.write_u8, mem.write_u16_le, mem.write_u32_le
local domain_sizes = {}
for _, d in ipairs(mem.domains()) do domain_sizes[d.name] = d.size end

local function unmapped(name)
  warn_once("mgba:unmapped", name .. ": an address the core does not map reads as 0 (writes there are dropped)")
end

-- IWRAM and EWRAM (GBA) or WRAM (Game Boy) as their own regions, read directly (no protected call).
local windows = {}
for _, w in ipairs(gba and { { 0x3000000, 0x8000 }, { 0x2000000, 0x40000 } } or { { 0xC000, 0x1000 }, { 0xD000, 0x1000 } }) do
  local name = format("bus_%X", w[1])
  if domain_sizes[name] == w[2] then windows[#windows + 1] = { w[1], w[1] + w[2], name } end
end
local w1, w2 = windows[1], windows[2]

local function colon(name, self)
  if type(self) ~= "table" then error(name .. ": call it with ':' (" .. name .. "(…))", 3) end
end

local function bus_reader(name, fn, width)
  return function(domain, address)
    if type(domain) ~= "table" then colon(name, domain) end
    if math_type(address) ~= "integer" then address = integer(name, 1, "address", address) end
    local a = address + domain._base
    if w1 and domain._domain == "bus" then
      if a >= w1[1] and a + width <= w1[2] then return fn(a - w1[1], w1[3]) end
      if w2 and a >= w2[1] and a + width <= w2[2] then return fn(a - w2[1], w2[3]) end
    end
    local ok, value = pcall(fn, address + domain._base, domain._domain)
    if ok then return value end
    unmapped(name)
    return 0
  end
end

local function bus_writer(name, fn, mask)
  return function(domain, address, value)
    if type(domain) ~= "table" then colon(name, domain) end
    if math_type(address) ~= "integer" then address = integer(name, 1, "address", address) end
    if math_type(value) ~= "integer" then value = integer(name, 2, "value", value) end
    if not pcall(fn, address + domain._base, value & mask, domain._domain) then unmapped(name) end
  end
end

local function range_reader(name)
  return function(domain, address, length)
    address = integer(name, 1, "address", address)
    length = integer(name, 2, "length", length)
    if length < 0 or length > 0x1000000 then error(name .. ": bad argument #2 'length' (0…16 MiB expected)", 2) end
    local ok, bytes = pcall(mem.read_bytes, address + domain._base, length, domain._domain)
    if ok then return bytes end
    local parts = {}
    for i = 1, length do
      local fine, b = pcall(read_u8, address + domain._base + i - 1, domain._domain)
      parts[i] = char(fine and b or 0)
    end
    unmapped(name)
    return concat(parts)
  end
end

-- The bus seen through emu:read8 (base 0, domain "bus").
local Core = owner("emu", { _base = 0, _domain = "bus" })
def("emu:read8", "supported", bus_reader("emu:read8", read_u8, 1))
def("emu:read16", "supported", bus_reader("emu:read16", read_u16, 2))
def("emu:read32", "supported", bus_reader("emu:read32", read_u32, 4))
def("emu:write8", "supported", bus_writer("emu:write8", write_u8, 0xFF))
def("emu:write16", "supported", bus_writer("emu:write16", write_u16, 0xFFFF))
def("emu:write32", "supported", bus_writer("emu:write32", write_u32, 0xFFFFFFFF))
def("emu:readRange", "supported", range_reader("emu:readRange"))

local Domain = owner("MemoryDomain", {})
Domain.__index = Domain
def("MemoryDomain:read8", "supported", bus_reader("MemoryDomain:read8", read_u8, 1),
  "offsets from the domain's base, as mGBA")
def("MemoryDomain:read16", "supported", bus_reader("MemoryDomain:read16", read_u16, 2))
def("MemoryDomain:read32", "supported", bus_reader("MemoryDomain:read32", read_u32, 4))
def("MemoryDomain:write8", "supported", bus_writer("MemoryDomain:write8", write_u8, 0xFF))
def("MemoryDomain:write16", "supported", bus_writer("MemoryDomain:write16", write_u16, 0xFFFF))
def("MemoryDomain:write32", "supported",
  bus_writer("MemoryDomain:write32", write_u32, 0xFFFFFFFF))
def("MemoryDomain:readRange", "supported", range_reader("MemoryDomain:readRange"))
def("MemoryDomain:base", "supported", function(self) return self._address end)
def("MemoryDomain:bound", "supported", function(self) return self._address + self._size end)
def("MemoryDomain:size", "supported", function(self) return self._size end)
def("MemoryDomain:name", "supported", function(self) return self._title end)

-- mGBA's domains: key, title, bus address, size; save RAM is our save_ram region when the core gives one.
local save_size = domain_sizes.save_ram
local layout = gba and {
  { "bios", "BIOS", 0, 0x4000 }, { "wram", "EWRAM", 0x2000000, 0x40000 }, { "iwram", "IWRAM", 0x3000000, 0x8000 },
  { "io", "MMIO", 0x4000000, 0x400 }, { "palette", "Palette", 0x5000000, 0x400 },
  { "vram", "VRAM", 0x6000000, 0x18000 }, { "oam", "OAM", 0x7000000, 0x400 },
  { "cart0", "ROM", 0x8000000, rom.size or 0x2000000 }, { "cart1", "ROM WS1", 0xA000000, rom.size or 0x2000000 },
  { "cart2", "ROM WS2", 0xC000000, rom.size or 0x2000000 }, { "sram", "SRAM", 0xE000000, save_size or 0x10000 },
} or {
  { "cart0", "ROM Bank", 0, rom.size or 0x8000 }, { "vram", "VRAM", 0x8000, 0x2000 },
  { "sram", "SRAM", 0xA000, save_size or 0x2000 }, { "wram", "WRAM", 0xC000, 0x2000 },
  { "oam", "OAM", 0xFE00, 0xA0 }, { "io", "MMIO", 0xFF00, 0x80 }, { "hram", "HRAM", 0xFF80, 0x7F },
}
Core.memory = {}
for _, d in ipairs(layout) do
  local on_region = d[1] == "sram" and save_size ~= nil
  Core.memory[d[1]] = setmetatable({ _title = d[2], _address = d[3], _size = d[4],
    _base = on_region and 0 or d[3], _domain = on_region and "save_ram" or "bus" }, Domain)
end
compat.record(LAYER, "emu.memory", "supported", gba and "bios, wram, iwram, io, palette, vram, oam, cart0-2, sram"
  or "cart0, vram, sram, wram, oam, io, hram")

----------------------------------------------------------------------------------------------------------------------
-- The core: info, keys, states
----------------------------------------------------------------------------------------------------------------------
local framecount = our.emu.framecount
local frame_cycles = gba and 280896 or 70224
local frequency = gba and 16777216 or 4194304
def("emu:platform", "supported", function() return platform end)
def("emu:currentFrame", "supported", function() return framecount() end)
def("emu:frameCycles", "supported", function() return frame_cycles end)
def("emu:frequency", "supported", function() return frequency end)
def("emu:currentCycle", "warned", function()
  return framecount() * frame_cycles
end, "frames × cycles per frame")
def("emu:romSize", "supported", function() return rom.size or 0 end)

local function header_string(address, length)
  local ok, bytes = pcall(mem.read_bytes, address, length, "bus")
  if not ok then return "" end
  return (bytes:gsub("%z.*$", ""))
end
def("emu:getGameTitle", "supported", function()
  if gba then return header_string(0x80000A0, 12) end
  return header_string(0x134, 16)
end, "from the cartridge header")
def("emu:getGameCode", "supported", function()
  if gba then return "AGB-" .. header_string(0x80000AC, 4) end
  return "DMG-" .. header_string(0x13F, 4)
end)

local function hex_bytes(hex)
  return (hex:gsub("%x%x", function(h) return char(tonumber(h, 16)) end))
end
def("emu:checksum", "supported", function(_, kind)
  if kind == nil or kind == C.CHECKSUM.CRC32 then return rom.crc32 and hex_bytes(rom.crc32) end
  if kind == C.CHECKSUM.SHA1 then return rom.sha1 and hex_bytes(rom.sha1) end
  error("emu:checksum: MD5 is not available in Retrolua (CRC32 and SHA1 are)", 2)
end, "CRC32 (big-endian bytes) and SHA1; not MD5")

def("emu:reset", "supported", function() our.emu.reset() end, "fires the reset callbacks, as mGBA's")
def("emu:runFrame", "unsupported", nil, "frames are run by Retrolua's frame loop; do the work in a frame callback")
def("emu:step", "unsupported", nil, "libretro cannot run single instructions")
def("emu:readRegister", "unsupported", nil, "libretro exposes no CPU registers")
def("emu:writeRegister", "unsupported", nil, "libretro exposes no CPU registers")
def("emu:loadFile", "unsupported", nil, "content is chosen on Retrolua's command line")
def("emu:autoloadSave", "unsupported", nil, "Retrolua loads the battery save itself")
def("emu:loadSaveFile", "unsupported", nil, "Retrolua loads the battery save itself")
def("emu:setRotationCallbacks", "unsupported", nil, "no rotation sensor through libretro")
def("emu:setSolarSensorCallback", "unsupported", nil, "no solar sensor through libretro")

-- Keys: the script's keys are held (pressed on top of the player's input) from the frame they are set until
-- cleared, as mGBA's.
local key_names = { [0] = "a", "b", "select", "start", "right", "left", "up", "down", "r", "l" }
local key_count = gba and 10 or 8
local script_keys, applied = 0, 0
local pad = {}
local keys_read = {}  -- the keysRead callbacks, in order: { id, fn }; run in the input poll before the keys apply
local need_input = lazily("input", function()
  for i = 1, #keys_read do
    local entry = keys_read[i]
    if entry then entry[2]() end
  end
  applied = script_keys
  if script_keys == 0 then return end
  for i = 0, key_count - 1 do pad[key_names[i]] = (script_keys >> i) & 1 == 1 or nil end
  our.joypad.set(1, pad)
end)

local function key_arg(name, key)
  key = integer(name, 1, "key", key, 4)
  if key < 0 or key >= 64 then error(name .. ": bad argument #1 'key' (0…63 expected)", 3) end
  return key
end
local function mask_arg(name, keys) return integer(name, 1, "keys", keys, 4) & 0x3FF end

def("emu:setKeys", "supported", function(_, keys)
  need_input()
  script_keys = mask_arg("emu:setKeys", keys)
end,
  "held on top of the player's input until changed")
def("emu:addKeys", "supported", function(_, keys)
  need_input()
  script_keys = script_keys | mask_arg("emu:addKeys", keys)
end)
def("emu:clearKeys", "supported", function(_, keys)
  need_input()
  script_keys = script_keys & ~mask_arg("emu:clearKeys", keys)
end)
def("emu:addKey", "supported", function(_, key)
  need_input()
  script_keys = script_keys | (1 << key_arg("emu:addKey", key))
end)
def("emu:clearKey", "supported", function(_, key)
  need_input()
  script_keys = script_keys & ~(1 << key_arg("emu:clearKey", key))
end)

local function keys_now()
  local state, player = our.joypad.get(1), 0
  for i = 0, key_count - 1 do
    if state[key_names[i]] then player = player | (1 << i) end
  end
  return script_keys | (player & ~applied)
end
def("emu:getKeys", "supported", function() return keys_now() end,
  "the script's keys and the buttons the core saw at its last poll")
def("emu:getKey", "supported", function(_, key)
  return (keys_now() >> key_arg("emu:getKey", key)) & 1
end)

local function state_result(ok) return ok == true end
def("emu:saveStateBuffer", "supported", function()
  local state = our.savestate.create()
  return state and state:bytes()
end, "a Retrolua state; the flags are ignored (everything is saved)")
def("emu:loadStateBuffer", "supported", function(_, bytes)
  if type(bytes) ~= "string" then
    error(format("emu:loadStateBuffer: bad argument #1 'buffer' (string expected, got %s)", type(bytes)), 2)
  end
  local state = our.savestate.from_bytes(bytes)
  return state ~= nil and state_result(state:load())
end)
def("emu:saveStateSlot", "supported", function(_, slot)
  return state_result(our.savestate.save(integer("emu:saveStateSlot", 1, "slot", slot)))
end)
def("emu:loadStateSlot", "supported", function(_, slot)
  return state_result(our.savestate.load(integer("emu:loadStateSlot", 1, "slot", slot)))
end)
def("emu:saveStateFile", "supported", function(_, path)
  if type(path) ~= "string" then error("emu:saveStateFile: bad argument #1 'path' (string expected)", 2) end
  return state_result(our.savestate.save(path))
end)
def("emu:loadStateFile", "supported", function(_, path)
  if type(path) ~= "string" then error("emu:loadStateFile: bad argument #1 'path' (string expected)", 2) end
  return state_result(our.savestate.load(path))
end)

local shots = 0
def("emu:screenshot", "supported", function(_, path)
  if path == nil then
    shots = shots + 1
    if shots == 1 then our.emu.save_data("mgba-screenshots/.retrolua", "") end  -- creates the folder
    path = our.emu.paths().data .. "/mgba-screenshots/" .. (rom.name or "game") .. "-" .. shots .. ".png"
  end
  if type(path) ~= "string" then error("emu:screenshot: bad argument #1 'filename' (string expected)", 2) end
  local ok, message = our.gui.screenshot(path)
  if not ok then our.console.warn("emu:screenshot: " .. tostring(message)) end
end, "with what scripts drew on the emu surface (canvas layers included); by default in the data folder's "
  .. "mgba-screenshots")

----------------------------------------------------------------------------------------------------------------------
-- Breakpoints and watchpoints: writes are seen after each frame (our watches); execution and reads have no hook.
----------------------------------------------------------------------------------------------------------------------
local watch_ids = {}
local next_watch = 1
local changed = {}  -- handle → callback, for watchpoints hit this frame (each runs once per frame)
local need_watch_calls = lazily("frame_end", function()
  if next(changed) == nil then return end
  local hit = changed
  changed = {}
  for _, fn in pairs(hit) do fn() end
end)
def("emu:setBreakpoint", "unsupported", nil, "libretro has no execution hook")
local function watch(name, fn, low, high, kind)
  if type(fn) ~= "function" then error(name .. ": bad argument #1 'callback' (function expected)", 3) end
  if kind == C.WATCHPOINT_TYPE.READ or kind == C.WATCHPOINT_TYPE.RW then
    error(name .. ": read watchpoints are not available in Retrolua (libretro has no memory access hook)", 3)
  end
  warn_once("mgba:watch", name .. ": approximated in Retrolua (writes are seen after each frame, when the value "
    .. "changed; writes of the same value are not seen)")
  local handle = next_watch
  next_watch = next_watch + 1
  need_watch_calls()
  watch_ids[handle] = compat.watch_bytes("bus", low, high - low, function() changed[handle] = fn end)
  return handle
end
compat.record(LAYER, "emu:setWatchpoint", "approximated", "write/change watchpoints, checked after each frame")
Core.setWatchpoint = function(_, fn, address, kind)
  address = integer("emu:setWatchpoint", 2, "address", address)
  return watch("emu:setWatchpoint", fn, address, address + 1, kind)
end
compat.record(LAYER, "emu:setRangeWatchpoint", "approximated", "write/change watchpoints, checked after each frame")
Core.setRangeWatchpoint = function(_, fn, low, high, kind)
  low, high = integer("emu:setRangeWatchpoint", 2, "minAddress", low), integer("emu:setRangeWatchpoint", 3,
    "maxAddress", high)
  if high <= low then error("emu:setRangeWatchpoint: maxAddress must be above minAddress", 2) end
  return watch("emu:setRangeWatchpoint", fn, low, high, kind)
end
def("emu:clearBreakpoint", "supported", function(_, handle)
  local ids = watch_ids[handle]
  if not ids then return false end
  watch_ids[handle], changed[handle] = nil, nil
  for _, id in ipairs(ids) do our.event.off(id) end
  return true
end)

rawset(_G, "emu", setmetatable({}, { __index = Core }))

----------------------------------------------------------------------------------------------------------------------
-- Callbacks
----------------------------------------------------------------------------------------------------------------------
local Callbacks = owner("callbacks", {})
local callback_ids = {}  -- our id (or a negative number for callbacks that never fire) → true
local silent = 0
local started = false
local start_waiters = {}
local need_start = lazily("frame_start", function()
  if started then return end
  started = true
  for _, fn in ipairs(start_waiters) do fn() end
end)

local events = { frame = "frame_end", reset = "reset", shutdown = "exit", stop = "exit" }
local save_watches = {}  -- savedataUpdated callback id → its watch ids
local never = { crashed = true, sleep = true, alarm = true, rumble = true, rotationCalibrate = true }

local remove  -- defined below, after add
local function add(name, kind, fn, once)
  if type(kind) ~= "string" then error(format("%s: bad argument #1 'callback' (string expected, got %s)", name,
    type(kind)), 3) end
  if type(fn) ~= "function" then error(format("%s: bad argument #2 'function' (function expected, got %s)", name,
    type(fn)), 3) end
  local id
  local run = fn
  if once then
    run = function(...)
      if id and callback_ids[id] then remove(id) end
      return fn(...)
    end
  end
  if events[kind] then
    id = our.event.on(events[kind], function() run() end)
  elseif kind == "keysRead" then
    silent = silent - 1
    id = silent
    need_input()
    keys_read[#keys_read + 1] = { id, function() run() end }
  elseif kind == "start" then
    warn_once("mgba:start", name .. ": 'start' runs before the first frame the script sees (approximated)")
    silent = silent - 1
    id = silent
    need_start()
    start_waiters[#start_waiters + 1] = function() if callback_ids[id] then run() end end
  elseif kind == "savedataUpdated" then
    if not save_size then
      warn_once("mgba:savedata", name .. ": this game has no save data; 'savedataUpdated' never fires")
      silent = silent - 1
      id = silent
    else
      local changed_ = false
      local ids = compat.watch_bytes("save_ram", 0, save_size, function() changed_ = true end)
      id = our.event.on("frame_end", function()
        if changed_ then
          changed_ = false
          run()
        end
      end)
      save_watches[id] = ids
    end
  elseif never[kind] then
    warn_once("mgba:" .. kind, name .. ": '" .. kind .. "' never fires in Retrolua (libretro reports no such event)")
    silent = silent - 1
    id = silent
  else
    error(format("%s: unknown callback '%s'", name, kind), 3)
  end
  callback_ids[id] = true
  return id
end

def("callbacks:add", "supported", function(_, kind, fn) return add("callbacks:add", kind, fn) end,
  "frame (after each frame), keysRead (in the input poll), reset, shutdown/stop (the run ends), savedataUpdated "
    .. "(save RAM changed during a frame), start (approximated: before the first frame); crashed, sleep, alarm, "
    .. "rumble never fire")
def("callbacks:oneshot", "supported", function(_, kind, fn)
  return add("callbacks:oneshot", kind, fn, true)
end)
function remove(id)
  callback_ids[id] = nil
  for i = #keys_read, 1, -1 do
    if keys_read[i][1] == id then table.remove(keys_read, i) end
  end
  if id > 0 then our.event.off(id) end
  for _, watch_id in ipairs(save_watches[id] or {}) do our.event.off(watch_id) end
  save_watches[id] = nil
end
def("callbacks:remove", "supported", function(_, id)
  if callback_ids[id] then remove(id) end
end)
rawset(_G, "callbacks", Callbacks)

----------------------------------------------------------------------------------------------------------------------
-- Console and text buffers. Buffers are drawn on the hud surface (window only, never in screenshots), stacked
-- from the top left, and their last contents are printed on stdout when the run ends.
----------------------------------------------------------------------------------------------------------------------
local Console = owner("console", {})
local write = our.console.write
def("console:log", "supported", function(_, ...) print(...) end, "stdout")
def("console:warn", "supported", function(_, ...) our.console.warn(...) end, "stderr")
def("console:error", "supported", function(_, ...) our.console.error(...) end, "stderr")

local TextBuffer = owner("TextBuffer", {})
TextBuffer.__index = TextBuffer
local buffers = {}

local function line_of(buffer, y)
  local line = buffer._lines[y + 1]
  if not line then
    for i = #buffer._lines + 1, y + 1 do buffer._lines[i] = "" end
    line = ""
  end
  return line
end

local function put(buffer, text)
  for i = 1, #text do
    local c = text:sub(i, i)
    if c == "\n" then
      buffer._x, buffer._y = 0, buffer._y + 1
    else
      if buffer._x >= buffer._cols then buffer._x, buffer._y = 0, buffer._y + 1 end
      if buffer._y >= buffer._rows then
        table.remove(buffer._lines, 1)
        buffer._y = buffer._rows - 1
      end
      local line = line_of(buffer, buffer._y)
      if #line < buffer._x then line = line .. (" "):rep(buffer._x - #line) end
      buffer._lines[buffer._y + 1] = line:sub(1, buffer._x) .. c .. line:sub(buffer._x + 2)
      buffer._x = buffer._x + 1
    end
  end
end

local need_buffer_draw, need_buffer_exit  -- set below, where what they run is defined
def("console:createBuffer", "approximated", function(_, name)
  local buffer = setmetatable({ _name = name and tostring(name) or "", _lines = {}, _x = 0, _y = 0, _cols = 80,
    _rows = 24 }, TextBuffer)
  buffers[#buffers + 1] = buffer
  need_buffer_draw()
  need_buffer_exit()
  return buffer
end, "drawn on the hud surface (window only) and printed on stdout when the run ends")
def("TextBuffer:print", "supported", function(self, text) put(self, tostring(text)) end)
def("TextBuffer:clear", "supported", function(self)
  self._lines, self._x, self._y = {}, 0, 0
end)
def("TextBuffer:setSize", "supported", function(self, cols, rows)
  self._cols = math.max(1, integer("TextBuffer:setSize", 1, "cols", cols))
  self._rows = math.max(1, integer("TextBuffer:setSize", 2, "rows", rows))
end)
def("TextBuffer:moveCursor", "supported", function(self, x, y)
  self._x = math.max(0, integer("TextBuffer:moveCursor", 1, "x", x))
  self._y = math.min(self._rows - 1, math.max(0, integer("TextBuffer:moveCursor", 2, "y", y)))
end)
def("TextBuffer:advance", "supported", function(self, n)
  self._x = self._x + integer("TextBuffer:advance", 1, "adv", n)
  while self._x >= self._cols do self._x, self._y = self._x - self._cols, math.min(self._rows - 1, self._y + 1) end
end)
def("TextBuffer:getX", "supported", function(self) return self._x end)
def("TextBuffer:getY", "supported", function(self) return self._y end)
def("TextBuffer:cols", "supported", function(self) return self._cols end)
def("TextBuffer:rows", "supported", function(self) return self._rows end)
def("TextBuffer:setName", "supported", function(self, name) self._name = tostring(name) end)

local hud_text = { color = 0xFFFFFFFF, bg = 0xA0000000, surface = "hud" }
need_buffer_draw = lazily("draw", function()
  if #buffers == 0 then return end
  local y = 0
  for _, buffer in ipairs(buffers) do
    for i = 1, #buffer._lines do
      if buffer._lines[i] ~= "" then our.gui.text(0, y, buffer._lines[i], hud_text) end
      y = y + 8
    end
  end
end)
need_buffer_exit = lazily("exit", function()
  for _, buffer in ipairs(buffers) do
    write("[" .. buffer._name .. "]")
    for i = 1, #buffer._lines do write(buffer._lines[i]) end
  end
end)
rawset(_G, "console", Console)

----------------------------------------------------------------------------------------------------------------------
-- Images, painters and canvas layers. An image keeps the shapes drawn on it (a display list, not pixels): a layer
-- shows its image's shapes as of its last update(), drawn on the emu surface every frame. Filling the whole image
-- with blending off clears it; filling part of it with a transparent colour erases the shapes inside that part.
----------------------------------------------------------------------------------------------------------------------
local MAX_SHAPES = 50000
local Image, Painter, Layer = owner("Image", {}), owner("Painter", {}), owner("CanvasLayer", {})
Image.__index, Painter.__index, Layer.__index = Image, Painter, Layer

local function new_image(w, h) return setmetatable({ width = w, height = h, _shapes = {} }, Image) end

-- shape: { kind, x, y, w, h, colour, extra } with bounds x, y, w, h.
local function add_shape(img, kind, x, y, w, h, c, extra)
  local shapes = img._shapes
  if #shapes >= MAX_SHAPES then
    warn_once("mgba:shapes", "image: more than " .. MAX_SHAPES .. " shapes without a clear; the oldest are dropped")
    local half = MAX_SHAPES // 2
    table.move(shapes, half + 1, #shapes, 1)
    for i = #shapes, #shapes - half + 1, -1 do shapes[i] = nil end
  end
  shapes[#shapes + 1] = { kind, x, y, w, h, c, extra }
end

local function erase(img, x, y, w, h)
  if x <= 0 and y <= 0 and x + w >= img.width and y + h >= img.height then
    img._shapes = {}
    return
  end
  local kept = {}
  for _, s in ipairs(img._shapes) do
    if not (s[2] >= x and s[3] >= y and s[2] + s[4] <= x + w and s[3] + s[5] <= y + h) then kept[#kept + 1] = s end
  end
  img._shapes = kept
end

compat.record(LAYER, "image.new", "supported", "an image holds shapes, not pixels (see getPixel)")
compat.record(LAYER, "image.load", "supported", "PNG")
compat.record(LAYER, "image.newPainter", "supported")
local image = {
  new = function(w, h)
    w, h = integer("image.new", 1, "width", w), integer("image.new", 2, "height", h)
    if w <= 0 or h <= 0 or w >= 10000 or h >= 10000 then return nil end
    return new_image(w, h)
  end,
  load = function(path)
    local img = our.gui.load_image(path)
    if not img then return nil end
    local result = new_image(img:width(), img:height())
    add_shape(result, "image", 0, 0, result.width, result.height, 0, img)
    return result
  end,
  newPainter = function(img)
    if getmetatable(img) ~= Image then error("image.newPainter: bad argument #1 'image' (Image expected)", 2) end
    return setmetatable({ _image = img, _blend = false, _fill = false, _fill_colour = 0, _stroke = 0,
      _stroke_colour = 0 }, Painter)
  end,
}
rawset(_G, "image", image)

def("Image:setPixel", "supported", function(self, x, y, c)
  x, y = integer("Image:setPixel", 1, "x", x), integer("Image:setPixel", 2, "y", y)
  c = integer("Image:setPixel", 3, "color", c) & 0xFFFFFFFF
  erase(self, x, y, 1, 1)
  if c >> 24 ~= 0 then add_shape(self, "pixel", x, y, 1, 1, c) end
end)
def("Image:getPixel", "warned",
  function(self, x, y)
    for i = #self._shapes, 1, -1 do
      local s = self._shapes[i]
      if (s[1] == "pixel" or s[1] == "fill") and x >= s[2] and y >= s[3] and x < s[2] + s[4] and y < s[3] + s[5] then
        return s[6]
      end
    end
    return 0
  end, "the colour of the newest pixel or filled rectangle drawn there, else 0")
def("Image:drawImage", "supported", function(self, other, x, y)
  if getmetatable(other) ~= Image then error("Image:drawImage: bad argument #1 'image' (Image expected)", 2) end
  x, y = integer("Image:drawImage", 2, "x", x), integer("Image:drawImage", 3, "y", y)
  add_shape(self, "sub", x, y, other.width, other.height, 0, table.move(other._shapes, 1, #other._shapes, 1, {}))
end, "alpha coefficient ignored")
compat.record(LAYER, "Image:drawImageOpaque", "approximated", "drawn with blending")
Image.drawImageOpaque = Image.drawImage
def("Image:save", "unsupported", nil, "images hold shapes, not pixels; use emu:screenshot")

def("Painter:setBlend", "supported", function(self, on) self._blend = on and true or false end)
def("Painter:setFill", "supported", function(self, on) self._fill = on and true or false end)
def("Painter:setFillColor", "supported", function(self, c)
  self._fill_colour = integer("Painter:setFillColor", 1, "color", c) & 0xFFFFFFFF
end)
def("Painter:setStrokeColor", "supported", function(self, c)
  self._stroke_colour = integer("Painter:setStrokeColor", 1, "color", c) & 0xFFFFFFFF
end)
def("Painter:setStrokeWidth", "supported", function(self, w)
  self._stroke = math.max(0, integer("Painter:setStrokeWidth", 1, "width", w))
end)

local function fill_rect(self, x, y, w, h, c)
  if w <= 0 or h <= 0 then return end
  local img, alpha = self._image, c >> 24
  -- An opaque fill, or any fill without blending, replaces what was there: the shapes inside are dropped (which
  -- also keeps an image repainted every frame from growing).
  if alpha == 0xFF or not self._blend then erase(img, x, y, w, h) end
  if alpha ~= 0 then add_shape(img, "fill", x, y, w, h, c) end
end

def("Painter:drawRectangle", "supported", function(self, x, y, w, h)
  local name = "Painter:drawRectangle"
  x, y, w, h = integer(name, 1, "x", x), integer(name, 2, "y", y), integer(name, 3, "width", w),
    integer(name, 4, "height", h)
  local s = self._stroke
  if self._fill then fill_rect(self, x + s, y + s, w - 2 * s, h - 2 * s, self._fill_colour) end
  if s > 0 and w > 0 and h > 0 then
    local c = self._stroke_colour
    if w <= 2 * s or h <= 2 * s then return fill_rect(self, x, y, w, h, c) end
    fill_rect(self, x, y, w - s, s, c)
    fill_rect(self, x, y + s, s, h - s, c)
    fill_rect(self, x + s, y + h - s, w - s, s, c)
    fill_rect(self, x + w - s, y, s, h - s, c)
  end
end)
def("Painter:drawLine", "supported", function(self, x1, y1, x2, y2)
  local name = "Painter:drawLine"
  x1, y1, x2, y2 = integer(name, 1, "x1", x1), integer(name, 2, "y1", y1), integer(name, 3, "x2", x2),
    integer(name, 4, "y2", y2)
  if self._stroke == 0 or self._stroke_colour >> 24 == 0 then return end
  local x, y = math.min(x1, x2), math.min(y1, y2)
  add_shape(self._image, "line", x, y, math.abs(x2 - x1) + 1, math.abs(y2 - y1) + 1, self._stroke_colour,
    { x1, y1, x2, y2 })
end, "stroke widths above 1 drawn 1 pixel wide")
def("Painter:drawCircle", "supported", function(self, x, y, d)
  local name = "Painter:drawCircle"
  x, y, d = integer(name, 1, "x", x), integer(name, 2, "y", y), integer(name, 3, "diameter", d)
  if d < 1 then return end
  local fill = self._fill and self._fill_colour >> 24 ~= 0 and self._fill_colour or nil
  local stroke = self._stroke > 0 and self._stroke_colour >> 24 ~= 0 and self._stroke_colour or nil
  if not fill and not stroke then return end
  -- without a stroke the fill alone is drawn (colour 0: no outline blended twice over its edge)
  add_shape(self._image, "circle", x, y, d, d, stroke or 0, fill)
end, "top-left corner of the bounding box and diameter, as mGBA")
def("Painter:drawText", "warned",
  function(self, text, x, y, align)
    text = tostring(text)
    x, y = integer("Painter:drawText", 2, "x", x), integer("Painter:drawText", 3, "y", y)
    local c = self._fill_colour >> 24 ~= 0 and self._fill_colour or self._stroke_colour
    local w, h = our.gui.text_size(text)
    align = align == nil and (C.ALIGN.TOP | C.ALIGN.LEFT) or integer("Painter:drawText", 4, "alignment", align)
    local horizontal, vertical = align & C.ALIGN.HORIZONTAL, align & C.ALIGN.VERTICAL
    if horizontal == C.ALIGN.HCENTER then x = x - w // 2 elseif horizontal == C.ALIGN.RIGHT then x = x - w end
    if vertical == C.ALIGN.VCENTER then
      y = y - h // 2
    elseif vertical == C.ALIGN.BOTTOM then
      y = y - h
    elseif vertical == C.ALIGN.BASELINE then
      y = y - 7  -- the 6x8 font's ascender
    end
    if c >> 24 ~= 0 then add_shape(self._image, "text", x, y, w, h, c, text) end
  end, "Retrolua's 6x8 font in the fill colour, anchored as C.ALIGN says; "
  .. "fonts and sizes ignored")
def("Painter:loadFont", "warned", function() return true end, "Retrolua draws its built-in 6x8 font")
def("Painter:setFontSize", "warned", function() end, "Retrolua draws its built-in 6x8 font")
-- mGBA's metrics are an object with methods (metrics:width()), as mGBA's scripts call them.
local TextRunMetrics = owner("TextRunMetrics", {})
TextRunMetrics.__index = TextRunMetrics
for _, key in ipairs({ "width", "height", "ascender", "descender" }) do
  def("TextRunMetrics:" .. key, "supported", function(self) return rawget(self, "_" .. key) end)
end
def("Painter:textRunMetrics", "warned", function(_, text)
  local w, h = our.gui.text_size(tostring(text))
  return setmetatable({ _width = w, _height = h, _ascender = 7, _descender = 1 }, TextRunMetrics)
end, "Retrolua's 6x8 font")
def("Painter:textBoxSize", "warned", function(_, text)
  local w, h = our.gui.text_size(tostring(text))
  return { width = w, height = h }
end, "Retrolua's 6x8 font")
def("Painter:drawMask", "unsupported", nil, "images hold shapes, not pixels")

-- Replays shapes at (ox, oy) on the emu surface, clipped to (cw, ch).
local opts = { color = 0, surface = "emu" }
local gui_rect, gui_line, gui_pixel, gui_circle, gui_text, gui_image = our.gui.rect, our.gui.line, our.gui.pixel,
  our.gui.circle, our.gui.text, our.gui.image
local function replay(shapes, ox, oy)
  for i = 1, #shapes do
    local s = shapes[i]
    local kind, x, y = s[1], s[2] + ox, s[3] + oy
    opts.color, opts.fill, opts.bg = s[6], nil, nil
    if kind == "fill" then
      -- one blend per pixel: the fill alone, no outline of the same colour over its edge
      opts.color, opts.fill = 0, s[6]
      gui_rect(x, y, s[4], s[5], opts)
    elseif kind == "pixel" then
      gui_pixel(x, y, opts)
    elseif kind == "line" then
      local e = s[7]
      gui_line(e[1] + ox, e[2] + oy, e[3] + ox, e[4] + oy, opts)
    elseif kind == "circle" then
      local r = s[4] // 2
      opts.fill = s[7]
      gui_circle(x + r, y + r, r, opts)
    elseif kind == "text" then
      gui_text(x, y, s[7], opts)
    elseif kind == "image" then
      gui_image(x, y, s[7], opts)
    elseif kind == "sub" then
      replay(s[7], x, y)
    end
  end
end

local layers = {}
local need_layers  -- set below, where what it runs is defined
local Canvas = owner("canvas", {})
def("canvas:newLayer", "supported", function(_, w, h)
  w, h = integer("canvas:newLayer", 1, "width", w), integer("canvas:newLayer", 2, "height", h)
  if w <= 0 or h <= 0 or w >= 10000 or h >= 10000 then return nil end
  local layer = setmetatable({ image = new_image(w, h), x = 0, y = 0, _shown = {} }, Layer)
  layers[#layers + 1] = layer
  need_layers()
  return layer
end, "drawn on the emu surface (in screenshots), the newest layer on top")
def("CanvasLayer:update", "supported", function(self)
  self._shown = table.move(self.image._shapes, 1, #self.image._shapes, 1, {})
end)
def("CanvasLayer:setPosition", "supported", function(self, x, y)
  self.x, self.y = integer("CanvasLayer:setPosition", 1, "x", x), integer("CanvasLayer:setPosition", 2, "y", y)
end)
def("canvas:update", "supported", function() end, "layers are drawn every frame")
local function surface_w() return (our.gui.surface_size("emu")) end
local function surface_h() return select(2, our.gui.surface_size("emu")) end
def("canvas:width", "supported", surface_w)
def("canvas:height", "supported", surface_h)
def("canvas:screenWidth", "supported", surface_w)
def("canvas:screenHeight", "supported", surface_h)
rawset(_G, "canvas", Canvas)
need_layers = lazily("draw", function()
  for i = 1, #layers do
    local layer = layers[i]
    if #layer._shown > 0 then replay(layer._shown, layer.x, layer.y) end
  end
end)

def("emu:screenshotToImage", "warned",
  function()
    local frame, w, h = our.gui.frame("image")
    if not frame then return nil end
    local img = new_image(w, h)
    add_shape(img, "image", 0, 0, w, h, 0, frame)
    return img
  end, "an image that draws the frame; getPixel reads 0")

----------------------------------------------------------------------------------------------------------------------
-- util, input, system, socket
----------------------------------------------------------------------------------------------------------------------
local util = owner("util", {})
rawset(_G, "util", util)
def("util.makeBitmask", "supported", function(list)
  if type(list) ~= "table" then error("util.makeBitmask: bad argument #1 'bits' (table expected)", 2) end
  local mask = 0
  for _, bit in ipairs(list) do
    if math_type(bit) == "integer" and bit >= 0 and bit < 64 then mask = mask | (1 << bit) end
  end
  return mask
end)
def("util.expandBitmask", "supported", function(mask)
  mask = integer("util.expandBitmask", 1, "mask", mask)
  local list = {}
  for i = 0, 63 do
    if (mask >> i) & 1 == 1 then list[#list + 1] = i end
  end
  return list
end)
def("util.newRectangle", "supported", function(x, y, w, h)
  return { x = x, y = y, width = w, height = h }
end)
def("util.newSize", "supported", function(w, h) return { width = w, height = h } end)

local input = owner("input", {})
rawset(_G, "input", input)
local function key_name(key)
  if math_type(key) == "integer" and key >= 32 and key < 127 then return char(key):lower() end
  if type(key) == "string" then return key:lower() end
  return nil
end
def("input.isKeyActive", "warned", function(key)
  local name = key_name(key)
  return name ~= nil and our.input.keys()[name] == true
end, "character codes and SDL key names")
def("input.activeKeys", "warned", function()
  local list = {}
  for name in pairs(our.input.keys()) do
    if #name == 1 then list[#list + 1] = byte(name) end
  end
  return list
end, "character codes of the printable keys held")

local system = { version = "0.10.1", program = "mGBA", branch = "retrolua", commit = "", revision = -1 }
rawset(_G, "system", system)
compat.record(LAYER, "system", "approximated", "the mGBA version Retrolua's layer follows")

-- mGBA's TCP sockets over the net module's (--allow-net: loopback): socket.tcp/bind/connect and a socket's listen,
-- accept, send, receive, hasdata, poll, add/remove ("received", "error"), close. As in mGBA, a listening socket and
-- the sockets it accepts (here also any socket given a callback) are polled once a frame, after it, and their
-- callbacks called with the socket; errors are socket.ERRORS' strings ("temporary failure" when nothing is waiting).
-- Without the permission, bind and connect give nil and the net module's message, which names the flag.
local SOCKERR = { UNKNOWN_ERROR = -1, OK = 0, AGAIN = 1, ADDRESS_IN_USE = 2, CONNECTION_REFUSED = 3, DENIED = 4,
  FAILED = 5, NETWORK_UNREACHABLE = 6, NOT_FOUND = 7, NO_DATA = 8, OUT_OF_MEMORY = 9, TIMEOUT = 10, UNSUPPORTED = 11 }
C.SOCKERR = SOCKERR
local ERRORS = setmetatable({ [-1] = "unknown error", "temporary failure", "address in use", "connection refused",
  "access denied", "failed", "network unreachable", "not found", "no data", "out of memory", "timeout", "unsupported" },
  { __index = function(t, key) return rawget(t, SOCKERR[key]) end })  -- ERRORS.AGAIN, as mGBA's
local socket = { ERRORS = ERRORS }
rawset(_G, "socket", socket)
compat.record(LAYER, "socket.ERRORS", "supported", "messages by code and by C.SOCKERR name, as mGBA's")
-- The net module's words for a failure, as mGBA's; a refusal by permission keeps its own (it names the flag).
local net_errors = { ["address already in use"] = ERRORS.ADDRESS_IN_USE,
  ["connection refused"] = ERRORS.CONNECTION_REFUSED, timeout = ERRORS.TIMEOUT, ["permission denied"] = ERRORS.DENIED,
  ["network is unreachable"] = ERRORS.NETWORK_UNREACHABLE, ["host not found"] = ERRORS.NOT_FOUND }
local function failure(fname, message)
  message = tostring(message)
  if net_errors[message] then return nil, net_errors[message] end
  warn_once("mgba:" .. fname .. message, fname .. ": " .. message)
  return nil, message
end
local net_ = rawget(_G, "net")
local function no_net(fname)
  if type(net_) == "table" and net_.tcp_connect then return nil end
  return failure(fname, "not available: this Retrolua has no TCP sockets for scripts")
end
local function address(host, port)
  if host:find(":", 1, true) then return "[" .. host .. "]:" .. port end
  return host .. ":" .. port
end
local function port_arg(fname, port)
  port = integer(fname, 2, "port", port, 5)
  if port < 0 or port > 65535 then
    error(format("%s: bad argument #2 'port' (0…65535 expected, got %d)", fname, port), 4)
  end
  return port
end

local Socket = {}
Socket.__index = Socket
local function new_socket(listener, conn)
  return setmetatable({ _listener = listener, _conn = conn, _callbacks = {}, _next = 1 }, Socket)
end
-- Polled once a frame from then on (a frame callback of the script's, as mGBA's: it keeps the script running).
local function hook(self)
  if not self._frame then self._frame = add("socket", "frame", function() self:poll() end) end
end
local function method(name, fn, note)
  compat.record(LAYER, "socket:" .. name, "supported", note)
  Socket[name] = function(self, ...)
    if getmetatable(self) ~= Socket then
      error(format("socket:%s: call it with ':' on a socket from socket.tcp()", name), 2)
    end
    return fn(self, ...)
  end
end

method("bind", function(self, host, port)
  local fname = "socket:bind"
  port = port_arg(fname, port)
  if host ~= nil and type(host) ~= "string" then
    error(fname .. ": bad argument #1 'address' (string or nil expected, got " .. type(host) .. ")", 3)
  end
  local unavailable, message = no_net(fname)
  if message then return unavailable, message end
  if host == nil or host == "" then
    -- mGBA's nil is every interface: loopback unless scripts may reach other hosts
    host = net_.allowed() == "all" and "0.0.0.0" or "127.0.0.1"
  end
  local listener, problem = net_.tcp_listen({ bind = address(host, port), backlog = 16 })
  if not listener then return failure(fname, problem) end
  if self._listener then self._listener:close() end
  self._listener = listener
  return 1
end, "listens at once (the net module binds and listens together); a nil address is 127.0.0.1 (every interface "
  .. "with --trust)")
method("listen", function(self)
  if not self._listener then return nil, ERRORS.FAILED end
  hook(self)
  return 1
end, "polled once a frame from then on; the backlog is the host's (16)")
method("accept", function(self)
  if not self._listener then return nil, ERRORS.UNSUPPORTED end
  local conn = self._listener:accept()
  if not conn then return nil, ERRORS.AGAIN end
  local client = new_socket(nil, conn)
  hook(client)
  return client
end)
method("connect", function(self, host, port)
  local fname = "socket:connect"
  if type(host) ~= "string" then
    error(fname .. ": bad argument #1 'address' (string expected, got " .. type(host) .. ")", 3)
  end
  port = port_arg(fname, port)
  local unavailable, message = no_net(fname)
  if message then return unavailable, message end
  local conn, problem = net_.tcp_connect(address(host, port))
  if not conn then return failure(fname, problem) end
  -- mGBA's connect blocks until it succeeds or fails: here at most 5 s of host time
  for _ = 1, 5 do
    if conn:state() ~= "connecting" then break end
    conn:wait(1000)
  end
  local state, why = conn:state()
  if state == "connecting" then
    conn:close()
    return nil, ERRORS.TIMEOUT
  elseif state == "closed" then
    return failure(fname, why)
  end
  if self._conn then self._conn:close() end
  self._conn = conn
  return 1
end, "waits for the connection at most 5 s (mGBA's blocks)")
method("send", function(self, data, i, j)
  if type(data) ~= "string" then
    error("socket:send: bad argument #1 'data' (string expected, got " .. type(data) .. ")", 3)
  end
  if not self._conn then return nil, ERRORS.UNKNOWN_ERROR end
  local sent = self._conn:send(data:sub(i or 1, j))
  if not sent then return nil, ERRORS.UNKNOWN_ERROR end
  if i then return sent + i - 1 end
  return sent
end, "copied into the connection's buffer (1 MiB), sent between frames; the count is what it took")
method("receive", function(self, max)
  max = integer("socket:receive", 1, "maxBytes", max, 4)
  if max < 1 then error("socket:receive: bad argument #1 'maxBytes' (1 or more expected)", 3) end
  if not self._conn then return nil, ERRORS.UNKNOWN_ERROR end
  local data, problem = self._conn:receive(max)
  if data then return data end
  if problem == "timeout" then return nil, ERRORS.AGAIN end
  local _, why = self._conn:state()
  if why == nil or why == "closed by the peer" then return nil, "disconnected" end
  return nil, net_errors[why] or why
end, "nil, socket.ERRORS.AGAIN when nothing is waiting; nil, \"disconnected\" once the peer closed and all is read")
method("hasdata", function(self)
  if self._listener then return self._listener:wait(0) end
  if not self._conn then return false end
  local state, why = self._conn:state()
  if state == "closed" and why ~= nil and why ~= "closed by the peer" and why ~= "closed" then
    return nil, net_errors[why] or why
  end
  return self._conn:wait(0)
end, "a listener: a connection is waiting; a connection: data (or its end) is waiting")
method("poll", function(self)
  local ready, problem = self:hasdata()
  if problem then self:_dispatch("error", problem) elseif ready then self:_dispatch("received") end
end)
method("add", function(self, event, fn)
  if type(event) ~= "string" then error("socket:add: bad argument #1 'event' (string expected)", 3) end
  if type(fn) ~= "function" then error("socket:add: bad argument #2 'callback' (function expected)", 3) end
  local id = self._next
  self._next = id + 1
  self._callbacks[event] = self._callbacks[event] or {}
  self._callbacks[event][id] = fn
  hook(self)
  return id
end, "\"received\" and \"error\", called with the socket once a frame while there is data or an error")
method("remove", function(self, id)
  for _, group in pairs(self._callbacks) do group[id] = nil end
end)
method("close", function(self)
  if self._frame then remove(self._frame) end
  self._frame, self._callbacks = nil, {}
  if self._listener then self._listener:close() end
  if self._conn then self._conn:close() end
  self._listener, self._conn = nil, nil
end, "pending bytes are still sent")
function Socket:_dispatch(event, ...)
  for _, fn in pairs(self._callbacks[event] or {}) do
    local ok, problem = pcall(fn, self, ...)
    if not ok then our.console.error(tostring(problem)) end
  end
end

compat.record(LAYER, "socket.tcp", "supported", "a socket to bind or connect")
socket.tcp = function() return new_socket(nil, nil) end
for _, name in ipairs({ "bind", "connect" }) do
  compat.record(LAYER, "socket." .. name, "supported", "a new socket, or nil and the error")
  socket[name] = function(host, port)
    local s = new_socket(nil, nil)
    local ok, problem = s[name](s, host, port)
    if ok then return s end
    return ok, problem
  end
end

----------------------------------------------------------------------------------------------------------------------
-- storage: buckets kept as JSON in the data folder (mgba-storage/SCRIPT/NAME.json), written durably on flush, every
-- 60 frames while changed (autoflush) and when the run ends.
----------------------------------------------------------------------------------------------------------------------
local script_path, script_folder = ...
local script_name = ((script_path or "script"):match("([^/]+)$") or "script"):gsub("%.lua$", "")

-- mGBA's `script` global: where the running script is (scripts load their images and fonts from script.dir)
rawset(_G, "script", { path = script_path, dir = script_folder })
compat.record(LAYER, "script", "supported", "script.path and script.dir of the running script")
local json = require("retrolua.json")
local Bucket = {}
local buckets = {}
local need_autoflush, need_flush_at_exit  -- set below, where what they run is defined

local function bucket_file(name) return "mgba-storage/" .. script_name .. "/" .. name .. ".json" end
local function bucket_flush(bucket)
  local self = rawget(bucket, "_state")
  local ok, message = our.emu.save_data(bucket_file(self.name), json.encode(self.data))
  self.dirty = false
  if not ok then our.console.warn("storage: " .. tostring(message)) end
  return ok == true
end
local function bucket_reload(bucket)
  local self = rawget(bucket, "_state")
  local text = our.emu.load_data(bucket_file(self.name))
  self.data = text and json.decode(text, true) or {}
  if type(self.data) ~= "table" then self.data = {} end
  self.dirty = false
end
Bucket.__index = function(bucket, key)
  if key == "flush" then return bucket_flush end
  if key == "reload" then return bucket_reload end
  if key == "enableAutoFlush" then
    return function(b, on) rawget(b, "_state").autoflush = on and true or false end
  end
  return rawget(bucket, "_state").data[key]
end
Bucket.__newindex = function(bucket, key, value)
  local self = rawget(bucket, "_state")
  self.data[key] = value
  self.dirty = true
end
compat.record(LAYER, "StorageBucket", "supported", "fields as values; flush, reload, enableAutoFlush")

local storage = owner("storage", {})
rawset(_G, "storage", storage)
def("storage:getBucket", "supported", function(_, name)
  if type(name) ~= "string" or not name:match("^[%w_%-%.]+$") or name:find("%.%.") then
    error("storage:getBucket: bad argument #1 'bucket' (a name of letters, digits, '_', '-', '.' expected)", 2)
  end
  if buckets[name] then return buckets[name] end
  local bucket = setmetatable({ _state = { name = name, data = {}, autoflush = true } }, Bucket)
  bucket_reload(bucket)
  buckets[name] = bucket
  need_autoflush()
  need_flush_at_exit()
  return bucket
end, "per script, in the data folder")
def("storage:flushAll", "supported", function()
  for _, bucket in pairs(buckets) do bucket_flush(bucket) end
end)
need_autoflush = lazily("frame_end", function()
  if framecount() % 60 ~= 0 then return end
  for _, bucket in pairs(buckets) do
    local state = rawget(bucket, "_state")
    if state.dirty and state.autoflush then bucket_flush(bucket) end
  end
end)
need_flush_at_exit = lazily("exit", function()
  for _, bucket in pairs(buckets) do
    if rawget(bucket, "_state").dirty then bucket_flush(bucket) end
  end
end)

local end_watch
watch_for_the_end = function()
  if end_watch or not main_chunk then return end
  end_watch = our.event.on("draw", function()
    -- a canvas layer stays on the picture, as in mGBA: it keeps the script running
    if coroutine.status(main_chunk) ~= "dead" or next(callback_ids) ~= nil or next(watch_ids) ~= nil
      or script_keys ~= 0 or #layers > 0 then
      return
    end
    for _, fn in ipairs(finishers) do fn() end
    for _, id in ipairs(helper_ids) do our.event.off(id) end
    our.event.off(end_watch)
  end)
end
