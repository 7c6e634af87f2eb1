-- BizHawk's memory domain names per system, each as one of ours and an offset into it: how the RAM
-- tools read BizHawk .wch watch lists ("RAM" on NES is our system_ram, "HRAM" on Game Boy is our bus
-- from 0xFF80). The names and layouts are those lua/compat/bizhawk.lua presents to BizHawk scripts.
--
--   local bizhawk = require("retrolua.bizhawk_domains")
--   local domain, address = bizhawk.resolve("RAM", 0x75, "NES")   --> "system_ram", 0x75
--   bizhawk.system()                                               --> "NES" (BizHawk's id for this game)

local bizhawk = {}

local BY_EXTENSION = {
  nes = "NES", fds = "NES", unf = "NES", unif = "NES", gb = "GB", gbc = "GBC", cgb = "GBC", gba = "GBA",
  sfc = "SNES", smc = "SNES", md = "GEN", gen = "GEN", smd = "GEN", sms = "SMS", gg = "GG", pce = "PCE",
  a26 = "A26", ws = "WSWAN", wsc = "WSWAN", sgx = "PCE", lnx = "Lynx", ngp = "NGP", ngc = "NGP",
}
local BY_NAME = {
  { "advance", "GBA" }, { "game boy", "GB" }, { "super nintendo", "SNES" }, { "nintendo entertainment", "NES" },
  { "famicom", "NES" }, { "genesis", "GEN" }, { "mega drive", "GEN" }, { "pc engine", "PCE" },
  { "turbografx", "PCE" }, { "2600", "A26" },
}

-- { BizHawk name, our domain, base }: the domains a watch list names (BizHawk's own per system).
local LAYOUTS = {
  NES = { { "RAM", "system_ram" }, { "System Bus", "bus" }, { "WRAM", "save_ram" }, { "Battery RAM", "save_ram" } },
  GB = { { "WRAM", "system_ram" }, { "ROM", "bus", 0 }, { "VRAM", "video_ram" }, { "CartRAM", "save_ram" },
         { "OAM", "bus", 0xFE00 }, { "HRAM", "bus", 0xFF80 }, { "System Bus", "bus" } },
  GBA = { { "IWRAM", "bus", 0x03000000 }, { "EWRAM", "bus", 0x02000000 }, { "BIOS", "bus", 0 },
          { "PALRAM", "bus", 0x05000000 }, { "VRAM", "bus", 0x06000000 }, { "OAM", "bus", 0x07000000 },
          { "ROM", "bus", 0x08000000 }, { "SRAM", "save_ram" }, { "System Bus", "bus" } },
  SNES = { { "WRAM", "system_ram" }, { "VRAM", "video_ram" }, { "CARTRAM", "save_ram" }, { "System Bus", "bus" } },
  -- The Genesis' 68K RAM is byte-swapped in ours relative to BizHawk's view: not a plain offset, not mapped.
  GEN = { { "SRAM", "save_ram" }, { "M68K BUS", "bus" } },
  PCE = { { "Main Memory", "system_ram" }, { "System Bus", "bus" }, { "Save RAM", "save_ram" } },
}
LAYOUTS.GBC = LAYOUTS.GB
local GENERIC = { { "Main RAM", "system_ram" }, { "RAM", "system_ram" }, { "System Bus", "bus" } }

-- BizHawk's system id of the running game (from the content's extension, else the core's system name).
function bizhawk.system()
  local info = emu.info()
  local extension = ((info.rom or {}).path or ""):match("%.([%w]+)$")
  local id = extension and BY_EXTENSION[extension:lower()]
  if id then return id end
  local name = (info.system or ""):lower()
  for _, pair in ipairs(BY_NAME) do
    if name:find(pair[1], 1, true) then return pair[2] end
  end
  return nil
end

local function exists(name)
  for _, domain in ipairs(memory.domains()) do
    if domain.name == name then return true end
  end
  return false
end

-- Our domain and address for BizHawk's domain `name` at `address` on `system` (this game's when nil);
-- nil when the name is not BizHawk's for that system or the core lacks our domain. Names match in any case.
function bizhawk.resolve(name, address, system)
  if type(name) ~= "string" then return nil end
  local lower = name:lower()
  for _, layout in ipairs({ LAYOUTS[system or bizhawk.system() or ""] or {}, GENERIC }) do
    for _, spec in ipairs(layout) do
      if spec[1]:lower() == lower and exists(spec[2]) then return spec[2], address + (spec[3] or 0) end
    end
  end
  return nil
end

return bizhawk
