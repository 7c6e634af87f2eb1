-- Mesen style, saved by an editor that writes a byte order mark (as many published scripts are).
local helper = dofile("bom_helper.lua")
local module = require("bom_module")
local frames = 0
emu.addEventCallback(function()
  frames = frames + 1
  if frames == 3 then
    emu.log("bom script: " .. helper.name .. " " .. module.name .. " ran " .. frames .. " frames")
  end
end, emu.eventType.endFrame)
