-- RAM watch overlay: a box listing memory values, each flashing yellow for half a second when it
-- changes. Edit WATCHES for your game; the defaults are the homebrew NES demo's RAM layout
-- (examples/roms/nes/README.md).
--
--   retrolua run --script examples/overlays/ram_watch.lua

local WATCHES = {
  { label = "frame", address = 0x00, read = memory.read_u16_le },
  { label = "pad",   address = 0x02, read = memory.read_u8, hex = true },
  { label = "x",     address = 0x03, read = memory.read_u8 },
  { label = "y",     address = 0x04, read = memory.read_u8 },
  { label = "A",     address = 0x05, read = memory.read_u8 },
}
local FLASH_FRAMES = 30

local last, changed_at = {}, {}

event.on("frame_end", function()
  for i, watch in ipairs(WATCHES) do
    local value = watch.read(watch.address)
    if last[i] ~= nil and value ~= last[i] then changed_at[i] = emu.framecount() end
    last[i] = value
  end
end)

event.on("draw", function()
  local x, y = 4, 4
  gui.rect(x - 2, y - 2, 84, #WATCHES * 9 + 3, { color = "#ffffff80", fill = "#000000b0" })
  for i, watch in ipairs(WATCHES) do
    local value = last[i]
    if value ~= nil then
      local text = watch.hex and string.format("%-6s %02X", watch.label, value) or string.format("%-6s %d", watch.label, value)
      local recent = changed_at[i] and emu.framecount() - changed_at[i] < FLASH_FRAMES
      gui.text(x, y + (i - 1) * 9, text, { color = recent and "yellow" or "white" })
    end
  end
end)
