-- Key display for the GBA demo ROM (examples/roms/gba) in BizHawk style: IWRAM as main memory,
-- "Combined WRAM" (EWRAM then IWRAM) and the System Bus, L/R buttons without a "P1 " prefix.
local function report(key, value)
  console.writeline("result " .. key .. "=" .. tostring(value))
end
report("system", emu.getsystemid())
report("main", mainmemory.getname())
for t = 0, 59 do
  joypad.set({ A = true, L = t >= 30, R = t >= 30 })
  gui.drawBox(0, 0, 9, 9, "Yellow", "Yellow")
  emu.frameadvance()
end
report("banner", memory.read_bytes_as_binary_string(0, 16, "EWRAM"))
report("banner_combined", memory.read_bytes_as_binary_string(0, 16, "Combined WRAM"))
local keys = mainmemory.read_u16_le(4)
report("keys", bizstring.binary(keys))
report("keys_combined", memory.read_u16_le(0x40004, "Combined WRAM") == keys)
report("keys_bus", memory.read_u16_le(0x03000004) == keys)
report("frames", mainmemory.read_u32_le(0) == memory.read_u32_le(0x40000, "Combined WRAM"))
report("pad", tostring(joypad.get().L) .. "," .. tostring(joypad.get().R))
client.exit()
