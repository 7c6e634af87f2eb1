-- What BizHawk connectors (Archipelago's, trackers') read besides sockets, in BizHawk's style: the version they
-- gate on, PreferredCores, a tick on the vblank vector (an execute hook), and the ROM's domains.
local function report(key, value)
  console.writeline("result " .. key .. "=" .. tostring(value))
end

local version = client.getversion()
report("version", version)
local major, minor = version:match("^(%d+)%.(%d+)")
report("gate", tonumber(major) == 2 and tonumber(minor) >= 7 and tonumber(minor) <= 9)
local cores = client.getconfig().PreferredCores
report("cores", table.concat({ cores.NES, cores.SNES, cores.GB, cores.GBC, cores.PCE }, ","))
report("system", emu.getsystemid())

local ticks = 0
local id = event.onmemoryexecute(function(address) ticks = ticks + (address == 0x40 and 1 or 0) end, 0x40, "tick",
  "System Bus")
report("tick_guid", type(id) == "string" and #id == 36)
-- a failed switch leaves the domain where it was (and warns)
report("use_missing", memory.usememorydomain("CHR"))
report("after_missing", memory.getcurrentmemorydomain())
if emu.getsystemid() == "NES" then
  report("prg_size", memory.getmemorydomainsize("PRG ROM"))
  local size = memory.getmemorydomainsize("PRG ROM")
  report("prg_same", memory.read_u16_le(size - 4, "PRG ROM") == memory.read_u16_le(0xFFFC, "System Bus"))
elseif emu.getsystemid() == "SNES" then
  report("cartrom_size", memory.getmemorydomainsize("CARTROM"))
  report("cartrom_title", memory.read_bytes_as_binary_string(0x7FC0, 16, "CARTROM"))
  report("cartrom_reset", memory.read_u16_le(0x7FFC, "CARTROM") == memory.read_u16_le(0xFFFC, "System Bus"))
end
for _ = 1, 10 do emu.frameadvance() end
report("ticks", ticks)
report("unregistered", event.unregisterbyname("tick"))
for _ = 1, 5 do emu.frameadvance() end
report("ticks_after", ticks)
