-- RetroAchievements address spaces mapped onto a libretro core's memory, for Retrolua's Lua library.
-- RetroAchievements numbers memory per console (its "console IDs"); cores expose it as regions
-- (system_ram, save_ram) or as a memory map (the `bus` domain). This module builds the
-- `peek(address, size)` function retrolua.achievements evaluates against.
--
--   local ra_memory = require("retrolua.ra_memory")
--   local peek, err = ra_memory.peek(console_id, memory)   -- memory: Retrolua's `memory` module
--   local peek, refresh = ra_memory.peek(console_id, memory, { snapshot = true })
--
-- peek returns the little-endian value of 1, 2 or 4 bytes, 0 outside mapped memory. With `snapshot`,
-- peek reads copies of the core's regions taken by `refresh()` (call it once per frame before
-- evaluating): one host call per region instead of one per condition (bus regions stay live).

local ra_memory = {}

-- Per console: RetroAchievements address ranges and where each lives, tried in order: a region
-- (domain name and offset), or the core's memory map (`bus`, at a bus address).
ra_memory.consoles = {
  [7] = { name = "NES", map = {
    { start = 0x0000, size = 0x0800, sources = { { "system_ram", 0 }, { "bus", 0x0000 } } },
    { start = 0x0800, size = 0x1800, sources = { { "system_ram", 0, mirror = 0x0800 }, { "bus", 0x0800 } } },
    { start = 0x6000, size = 0x2000, sources = { { "save_ram", 0 }, { "bus", 0x6000 } } },
  } },
  [4] = { name = "Game Boy", map = {
    { start = 0x0000, size = 0x10000, sources = { { "bus", 0x0000 } } },
  } },
  [6] = { name = "Game Boy Color", map = {
    { start = 0x0000, size = 0x10000, sources = { { "bus", 0x0000 } } },
  } },
  [5] = { name = "Game Boy Advance", map = {
    { start = 0x00000, size = 0x08000, sources = { { "bus", 0x03000000 }, { "system_ram", 0 } } },
    { start = 0x08000, size = 0x40000, sources = { { "bus", 0x02000000 } } },
    { start = 0x48000, size = 0x10000, sources = { { "save_ram", 0 }, { "bus", 0x0E000000 } } },
  } },
  [3] = { name = "SNES", map = {
    { start = 0x000000, size = 0x20000, sources = { { "system_ram", 0 }, { "bus", 0x7E0000 } } },
    { start = 0x020000, size = 0x80000, sources = { { "save_ram", 0 } } },
  } },
  [1] = { name = "Genesis/Mega Drive", map = {
    { start = 0x000000, size = 0x10000, sources = { { "system_ram", 0 }, { "bus", 0xFF0000 } } },
    { start = 0x010000, size = 0x10000, sources = { { "save_ram", 0 } } },
  } },
}

-- A value that straddles ranges (or lies outside them), byte by byte, little-endian like rcheevos.
local function little_endian(read_byte, address, size)
  local value = 0
  for i = 0, size - 1 do value = value | (read_byte(address + i) << (8 * i)) end
  return value
end

--- Builds the peek function for `console_id` over `memory` (and, with `options.snapshot`, the refresh
--- function that copies the regions); `nil, message` when the core exposes none of the console's memory.
function ra_memory.peek(console_id, memory, options)
  local console = ra_memory.consoles[console_id]
  if not console then return nil, "no memory map for RetroAchievements console " .. tostring(console_id) end
  local sizes = {}
  for _, domain in ipairs(memory.domains()) do sizes[domain.name] = domain.size end
  -- Resolved ranges: RA start/end, domain, address of RA start in the domain, mirror length.
  local ranges = {}
  for _, range in ipairs(console.map) do
    for _, source in ipairs(range.sources) do
      local domain, base = source[1], source[2]
      local available = sizes[domain] and sizes[domain] - base
      if available and available > 0 then
        local length = math.min(range.size, source.mirror and math.huge or available)
        ranges[#ranges + 1] = { first = range.start, last = range.start + length - 1, domain = domain, base = base,
                                mirror = source.mirror }
        break
      end
    end
  end
  if #ranges == 0 then return nil, "the core exposes none of the " .. console.name .. "'s memory" end
  local read_u8, read_u16, read_u32 = memory.read_u8, memory.read_u16_le, memory.read_u32_le
  -- The bus may have holes (unmapped addresses raise): read it through pcall, 0 when unmapped.
  local function guarded(read)
    return function(address, domain)
      if domain ~= "bus" then return read(address, domain) end
      local ok, value = pcall(read, address, domain)
      return ok and value or 0
    end
  end
  read_u8, read_u16, read_u32 = guarded(read_u8), guarded(read_u16), guarded(read_u32)

  local function byte(address)
    for i = 1, #ranges do
      local range = ranges[i]
      if address >= range.first and address <= range.last then
        local offset = address - range.first
        if range.mirror then offset = offset % range.mirror end
        return read_u8(range.base + offset, range.domain)
      end
    end
    return 0
  end

  if options and options.snapshot then return ra_memory.snapshot_peek(ranges, sizes, memory, byte) end

  return function(address, size)
    -- The common case: the whole value inside one range, read natively in one call.
    for i = 1, #ranges do
      local range = ranges[i]
      if address >= range.first and address + size - 1 <= range.last and not range.mirror then
        local at = range.base + address - range.first
        if size == 1 then return read_u8(at, range.domain) end
        if size == 2 then return read_u16(at, range.domain) end
        return read_u32(at, range.domain)
      end
    end
    return little_endian(byte, address, size)
  end
end

-- Snapshot mode: whole regions copied once per frame (`refresh`), values unpacked from the copies.
function ra_memory.snapshot_peek(ranges, sizes, memory, live_byte)
  local copies = {}  -- domain name -> its bytes as a string, for every region-backed range
  local unpack, byte = string.unpack, string.byte
  local function refresh()
    for _, range in ipairs(ranges) do
      if range.domain ~= "bus" then copies[range.domain] = memory.read_bytes(0, sizes[range.domain], range.domain) end
    end
  end
  refresh()

  local function one(address)
    for i = 1, #ranges do
      local range = ranges[i]
      if address >= range.first and address <= range.last then
        local copy = copies[range.domain]
        if not copy then return live_byte(address) end
        local offset = address - range.first
        if range.mirror then offset = offset % range.mirror end
        return byte(copy, range.base + offset + 1) or 0
      end
    end
    return 0
  end

  local function peek(address, size)
    for i = 1, #ranges do
      local range = ranges[i]
      if address >= range.first and address + size - 1 <= range.last and not range.mirror then
        local copy = copies[range.domain]
        if not copy then break end
        local at = range.base + address - range.first + 1
        if size == 1 then return byte(copy, at) or 0 end
        if at + size - 1 <= #copy then return (unpack(size == 2 and "<I2" or "<I4", copy, at)) end
        break
      end
    end
    return little_endian(one, address, size)
  end
  return peek, refresh
end

return ra_memory
