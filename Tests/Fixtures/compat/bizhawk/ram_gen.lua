-- Genesis 68K RAM in BizHawk's byte order (big-endian, the 68K's), over a core that keeps it as native
-- 16-bit words: the values and the raw bytes (our own domain name "system_ram") are printed.
local function report(key, value)
  console.writeline("result " .. key .. "=" .. tostring(value))
end
report("system", emu.getsystemid())
report("main", mainmemory.getname())
mainmemory.write_u16_be(0x100, 0x1234)
memory.write_u32_be(0x104, 0xA1B2C3D4, "68K RAM")
report("u8", mainmemory.read_u8(0x100) .. "," .. mainmemory.read_u8(0x101))
report("u16_be", bizstring.hex(mainmemory.read_u16_be(0x100)))
report("u32_be", bizstring.hex(memory.read_u32_be(0x104, "68K RAM")))
report("s8", mainmemory.read_s8(0x104))
local range = mainmemory.readbyterange(0x104, 4)
report("range", bizstring.hex(range[0]) .. bizstring.hex(range[3]))
local raw = {}
for i = 0x100, 0x107 do raw[#raw + 1] = bizstring.pad_start(bizstring.hex(memory.read_u8(i, "system_ram")), 2, "0") end
report("raw", table.concat(raw, " "))
emu.frameadvance()
client.exit()
