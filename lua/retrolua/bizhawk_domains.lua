-- BizHawk's systems and memory domains, each domain as a view onto one of ours: the one table that the
-- BizHawk layer (lua/compat/bizhawk.lua: `memory.*` over these views) and the RAM tools (BizHawk .wch
-- watch lists: "RAM" on NES is our system_ram, "HRAM" on Game Boy is our bus from 0xFF80) both read.
--
--   local bizhawk = require("retrolua.bizhawk_domains")
--   bizhawk.system()                                               --> "NES" (BizHawk's id for this game)
--   local domain, address = bizhawk.resolve("RAM", 0x75, "NES")   --> "system_ram", 0x75

local bizhawk = {}

-- BizHawk's system ids by the content's extension, else by words of the core's system name.
bizhawk.BY_EXTENSION = {
  nes = "NES", fds = "NES", unf = "NES", unif = "NES", gb = "GB", gbc = "GBC", cgb = "GBC", gba = "GBA",
  sfc = "SNES", smc = "SNES", md = "GEN", gen = "GEN", smd = "GEN", sms = "SMS", gg = "GG", pce = "PCE",
  a26 = "A26", ws = "WSWAN", wsc = "WSWAN", vb = "VB", nds = "NDS", n64 = "N64", z64 = "N64", v64 = "N64",
  sgx = "PCE", col = "Coleco", lnx = "Lynx", ngp = "NGP", ngc = "NGP", ["32x"] = "32X",
}
bizhawk.BY_NAME = {
  { "advance", "GBA" }, { "game boy", "GB" }, { "super nintendo", "SNES" }, { "nintendo entertainment", "NES" },
  { "famicom", "NES" }, { "genesis", "GEN" }, { "mega drive", "GEN" }, { "pc engine", "PCE" },
  { "turbografx", "PCE" }, { "playstation", "PSX" }, { "saturn", "SAT" }, { "2600", "A26" },
  { "wonderswan", "WSWAN" }, { "virtual boy", "VB" }, { "nintendo ds", "NDS" }, { "nintendo 64", "N64" },
}

-- Per system: { BizHawk name, our domain, base, size (nil: the rest of ours), second half { split, base2 } }, or
-- map = a name in MAPS (bytes found through a function of the address); `main` is the domain BizHawk scripts get
-- by default, `missing` BizHawk's domains no libretro core shows.
bizhawk.LAYOUTS = {
  NES = {
    main = "RAM",
    { "RAM", "system_ram" }, { "System Bus", "bus" }, { "WRAM", "save_ram" }, { "Battery RAM", "save_ram" },
    -- the CPU's window onto the cartridge's ROM (0x8000-0xFFFF): the whole PRG ROM on a 32 KiB cartridge, the banks
    -- mapped now on a larger one (a libretro core shows no other view of the ROM)
    { "PRG ROM", "bus", 0x8000, 0x8000, banked = true },
    missing = { "CHR", "CHR VROM", "CHR VRAM", "CIRAM (nametables)", "PALRAM", "OAM", "PPU Bus" },
  },
  GB = {
    main = "WRAM",
    { "WRAM", "system_ram" }, { "ROM", "bus", 0, 0x8000 }, { "VRAM", "video_ram" }, { "VRAM", "bus", 0x8000, 0x2000 },
    { "CartRAM", "save_ram" }, { "OAM", "bus", 0xFE00, 0xA0 }, { "HRAM", "bus", 0xFF80, 0x7F },
    { "System Bus", "bus" },
    missing = { "SGB", "BGPRAM", "OBPRAM" },
  },
  GBA = {
    main = "IWRAM",
    { "IWRAM", "bus", 0x03000000, 0x8000 }, { "EWRAM", "bus", 0x02000000, 0x40000 }, { "BIOS", "bus", 0, 0x4000 },
    { "PALRAM", "bus", 0x05000000, 0x400 }, { "VRAM", "bus", 0x06000000, 0x18000 }, { "OAM", "bus", 0x07000000, 0x400 },
    { "ROM", "bus", 0x08000000 }, { "SRAM", "save_ram" },
    { "Combined WRAM", "bus", 0x02000000, 0x48000, { 0x40000, 0x03000000 - 0x40000 } }, { "System Bus", "bus" },
  },
  SNES = {
    main = "WRAM",
    { "WRAM", "system_ram" }, { "VRAM", "video_ram" }, { "CARTRAM", "save_ram" }, { "System Bus", "bus" },
    { "CARTROM", "bus", map = "snes_rom" },
    -- the PPU's and the sound CPU's own memories are not in any SNES core's libretro memory map
    missing = { "OAM", "CGRAM", "APURAM", "SGB CARTRAM" },
  },
  GEN = {
    main = "68K RAM",
    -- Genesis cores keep 68K RAM as native 16-bit words: on this little-endian host each byte pair is swapped
    -- relative to the 68K's order, which BizHawk's domain shows (stable-retro's overlay says the same)
    { "68K RAM", "system_ram", swap = true }, { "SRAM", "save_ram" }, { "M68K BUS", "bus" },
    missing = { "Z80 RAM", "MD CART", "CRAM", "VSRAM" },
  },
  PCE = { main = "Main Memory", { "Main Memory", "system_ram" }, { "System Bus", "bus" }, { "Save RAM", "save_ram" } },
}
bizhawk.LAYOUTS.GBC = bizhawk.LAYOUTS.GB

-- Domains found through a function: MAPS[name](api) gives { base =, size =, at = function(address) (nil: a plain
-- offset from base) } for this game, or nil when the core does not show it.
bizhawk.MAPS = {
  -- SNES CARTROM: the cartridge's ROM through the bus. Its header is at bus 0xFFC0 on LoROM and HiROM carts alike;
  -- its map mode (0xFFD5) says where the ROM lies: HiROM in order from bank 0xC0, LoROM in the upper 32 KiB of
  -- banks 0x80-0xFF. The header's size (0xFFD7: 1 KiB << n) bounds it, at most the 4 MiB those banks hold.
  snes_rom = function(api)
    local ok, mode = pcall(api.memory.read_u8, 0xFFD5, "bus")
    local ok_size, code = pcall(api.memory.read_u8, 0xFFD7, "bus")
    if not ok or not ok_size then return nil end
    local size = (code >= 5 and code <= 12) and (1024 << code) or 0x400000
    if mode & 0x0F == 1 or mode & 0x0F == 5 then return { base = 0xC00000, size = size } end
    return { base = 0x808000, size = size,
      at = function(address) return 0x808000 + ((address >> 15) << 16) + (address & 0x7FFF) end }
  end,
}
-- Any other system: BizHawk's generic names for the core's main memory.
local GENERIC = { { "Main RAM", "system_ram" }, { "RAM", "system_ram" }, { "System Bus", "bus" } }

-- BizHawk's system id of the running game, or nil. `api` is the Retrolua API to ask (default: the globals;
-- the BizHawk layer passes the real one it keeps under its own modules).
function bizhawk.system(api)
  api = api or { emu = emu, memory = memory }
  local info = api.emu.info()
  local extension = ((info.rom or {}).path or ""):match("%.([%w]+)$")
  local id = extension and bizhawk.BY_EXTENSION[extension:lower()]
  if not id then
    local name = (info.system or ""):lower()
    for _, pair in ipairs(bizhawk.BY_NAME) do
      if name:find(pair[1], 1, true) then id = pair[2]; break end
    end
  end
  if id == "GB" then
    -- a cartridge whose header asks for Color hardware (0x143 bit 7) runs as a GBC game, as BizHawk names it
    local ok, flag = pcall(api.memory.read_u8, 0x143, "bus")
    if ok and flag >= 0x80 then id = "GBC" end
  end
  return id
end

local function exists(name)
  for _, domain in ipairs(memory.domains()) do
    if domain.name == name then return true end
  end
  return false
end

-- Our domain and address for BizHawk's domain `name` at `address` on `system` (this game's when nil);
-- nil when the name is not BizHawk's for that system, its bytes are not a plain offset into ours (the
-- Genesis' swapped 68K RAM) or the core lacks our domain. Names match in any case.
function bizhawk.resolve(name, address, system)
  if type(name) ~= "string" then return nil end
  local lower = name:lower()
  for _, layout in ipairs({ bizhawk.LAYOUTS[system or bizhawk.system() or ""] or {}, GENERIC }) do
    for _, spec in ipairs(layout) do
      if spec[1]:lower() == lower and not spec.swap and not spec.map and exists(spec[2]) then
        return spec[2], address + (spec[3] or 0)
      end
    end
  end
  return nil
end

return bizhawk
