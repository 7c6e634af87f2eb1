-- An mGBA-style Game Boy bot (written for Retrolua's tests): holds Right for 10 frames through C.GB_KEY and
-- reports the player's X before and after from the wram domain.
local x0
local frames = 0
callbacks:add("keysRead", function()
  local f = emu:currentFrame()
  if f >= 20 and f < 30 then emu:addKey(C.GB_KEY.RIGHT) else emu:clearKey(C.GB_KEY.RIGHT) end
end)
callbacks:add("frame", function()
  frames = frames + 1
  local f = emu:currentFrame()
  if f == 10 then x0 = emu.memory.wram:read8(3) end
  if f == 40 then
    console:log("gb", emu:platform() == C.PLATFORM.GB, emu:getGameTitle(), x0, emu.memory.wram:read8(3),
      emu:read16(0xC000) == emu.memory.wram:read16(0), emu:frameCycles(), emu.memory.hram:base())
  end
end)
