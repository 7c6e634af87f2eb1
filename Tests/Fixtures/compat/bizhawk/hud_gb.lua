-- Player tracker for the Game Boy demo ROM (examples/roms/gb) in BizHawk style: WRAM through mainmemory,
-- the System Bus through memory, handheld button names without a "P1 " prefix, anchored gui.text.
local WRAM_FRAMES, WRAM_PAD, WRAM_X, WRAM_Y, WRAM_PRESSES, WRAM_B = 0x0, 0x2, 0x3, 0x4, 0x5, 0x6

local function report(key, value)
  console.writeline("result " .. key .. "=" .. tostring(value))
end

report("system", emu.getsystemid())
report("main", mainmemory.getname())
report("main_size", mainmemory.getcurrentmemorydomainsize())
report("bus_default", memory.getcurrentmemorydomain())
report("use_vram", memory.usememorydomain("VRAM"))
report("use_bogus", memory.usememorydomain("PRG ROM"))
memory.usememorydomain("System Bus")
report("rom_header", memory.read_u8(0x0147) == memory.read_u8(0x147, "ROM"))

local history = {}
local frame_end_id = event.onframeend(function()
  history[#history + 1] = mainmemory.read_u8(WRAM_X)
end, "history")

local t = 0
while true do
  if t < 60 then
    joypad.set({ Right = true, A = t % 2 == 0 })
  elseif t < 90 then
    joypad.set({ Down = true }, 1)
  elseif t < 100 then
    joypad.set({ B = true })
  elseif t == 100 then
    report("b_flag", mainmemory.read_u8(WRAM_B))
    report("pad_byte", bizstring.binary(mainmemory.read_u8(WRAM_PAD)))
    report("pad_b", joypad.get().B)
    mainmemory.write_u16_le(0x10, 0xBEEF)
    mainmemory.write_bytes_as_array(0x12, { 1, 2, 3 })
  elseif t == 101 then
    report("u16", bizstring.hex(mainmemory.read_u16_be(0x10)))
    local bytes = mainmemory.read_bytes_as_array(0x12, 3)
    report("array", table.concat(bytes, ","))
    report("bus_u8", memory.read_u8(0xC012))
    report("s8", mainmemory.read_s8(0x10))
    report("hash_len", #memory.hash_region(0xC000, 16))
    report("history_unregistered", event.unregisterbyid(frame_end_id))
    report("history_len", #history)
  elseif t == 250 then
    report("x", mainmemory.read_u8(WRAM_X))
    report("y", mainmemory.read_u8(WRAM_Y))
    report("presses", mainmemory.read_u8(WRAM_PRESSES))
    report("frames_ram", memory.read_u16_le(0xC000) == mainmemory.read_u16_le(WRAM_FRAMES))
    report("split", table.concat(bizstring.split("a,b,,c", ","), "+"))
    report("trim", "[" .. bizstring.trim("  gb  ") .. "]")
  end
  gui.drawRectangle(4, 4, 30, 12, "Black", "Magenta")
  gui.drawBox(150, 130, 140, 120, 0xFF00FFFF)
  gui.text(2, 2, "GB", "red", "bottomright")
  gui.drawLine(0, 70, 159, 70, "DodgerBlue")
  emu.frameadvance()
  t = t + 1
end
