-- An mGBA-style key bot, RAM watch and overlay for Retrolua's demo.gba (written for Retrolua's tests). The main
-- chunk sets things up and returns; callbacks do the rest, as in mGBA. It checks what it reads, writes and presses
-- itself and prints a summary at shutdown.
local checks, failed = 0, 0
local function check(ok, what)
  checks = checks + 1
  if not ok then
    failed = failed + 1
    console:log("FAIL " .. what)
  end
end

local frames, keyFrames, keyMismatch = 0, 0, 0
local pressed = 0         -- the key mask the bot pressed for this frame
local done = {}           -- steps done (frame numbers repeat after a state loads)
local watch = console:createBuffer("watch")
watch:setSize(40, 4)

local layer = canvas:newLayer(120, 60)
layer:setPosition(8, 80)
local painter = image.newPainter(layer.image)

local function redraw(value)
  painter:setBlend(false)
  painter:setFill(true)
  painter:setFillColor(0x00000000)
  painter:drawRectangle(0, 0, 120, 60)          -- clears the layer
  painter:setFillColor(0xFF00FF00)
  painter:setStrokeWidth(1)
  painter:setStrokeColor(0xFFFF0000)
  painter:drawRectangle(0, 0, 40, 20)           -- green, red border
  painter:setFill(false)
  painter:setStrokeColor(0xFFFFFF00)
  painter:drawLine(0, 30, 60, 30)
  painter:setFill(true)
  painter:setFillColor(0xFF0000FF)
  painter:setStrokeWidth(0)
  painter:drawCircle(70, 5, 20)
  painter:setFillColor(0xFFFFFFFF)
  painter:drawText(tostring(value), 0, 40)
  layer:update()
end

local startSeen = false
callbacks:add("start", function() startSeen = true end)

-- The bot: A on even frames 10-40, Right+Up (a mask) on 60-69, all released after.
callbacks:add("keysRead", function()
  local f = emu:currentFrame()
  emu:clearKeys(0x3FF)
  if f >= 10 and f <= 40 and f % 2 == 0 then
    emu:addKey(C.GBA_KEY.A)
  elseif f >= 60 and f < 70 then
    emu:setKeys(util.makeBitmask({ C.GBA_KEY.RIGHT, C.GBA_KEY.UP }))
  elseif f == 75 then
    emu:addKeys(1 << C.GBA_KEY.L)
  end
  pressed = emu:getKeys()
end)

local state, stateColour
local slotFrame
local frameId
frameId = callbacks:add("frame", function()
  frames = frames + 1
  local f = emu:currentFrame()
  local keys = emu.memory.iwram:read16(4)   -- what the game read this frame
  if pressed ~= 0 then
    keyFrames = keyFrames + 1
    if keys ~= pressed then keyMismatch = keyMismatch + 1 end
  end
  watch:clear()
  watch:print(string.format("frame %d keys %03X\n", emu:read32(0x03000000), keys))
  watch:print("colour " .. string.format("%04X", emu:read16(0x03000008)))
  redraw(f)
  if done[f] then return end
  done[f] = true
  if f == 5 then
    check(emu:platform() == C.PLATFORM.GBA, "platform")
    check(emu:getGameTitle() == "RETROLUA SYS", "title " .. emu:getGameTitle())
    check(emu:getGameCode() == "AGB-ZRLE", "code " .. emu:getGameCode())
    check(emu:checksum(C.CHECKSUM.CRC32) == "\xD5\xA6\xD2\x09", "crc32")
    check(emu:romSize() == 1024, "rom size " .. emu:romSize())
    check(emu:frameCycles() == 280896 and emu:frequency() == 16777216, "clocks")
    check(emu.memory.wram:readRange(0, 16) == "RETROLUA-SYSTEMS", "EWRAM text")
    check(emu:readRange(0x02000000, 8) == "RETROLUA", "bus readRange")
    check(emu.memory.iwram:base() == 0x03000000 and emu.memory.iwram:size() == 0x8000, "iwram domain")
    check(emu.memory.iwram:bound() == 0x03008000 and emu.memory.wram:name() == "EWRAM", "domain bound and name")
    check(emu:read8(0x02000001) == string.byte("E"), "read8")
    check(startSeen, "start callback")
  elseif f == 50 then
    emu.memory.iwram:write32(0x100, 0xCAFEF00D)
    check(emu:read32(0x03000100) == 0xCAFEF00D, "write32 through a domain")
    emu:write16(0x03000104, 0x1234)
    check(emu.memory.iwram:read16(0x104) == 0x1234, "write16")
    emu:write8(0x03000106, 0xAB)
    check(emu:read8(0x03000106) == 0xAB and emu:read16(0x03000106) == 0x00AB, "write8")
    local list = util.expandBitmask(0x15)
    check(#list == 3 and list[1] == 0 and list[2] == 2 and list[3] == 4, "expandBitmask")
    check(emu:getKey(C.GBA_KEY.A) == 0, "A not held on frame 50")
  elseif f == 80 then
    state, stateColour = emu:saveStateBuffer(), emu:read16(0x03000008)
    check(type(state) == "string" and #state > 1000, "state buffer")
    check(emu:saveStateSlot(3), "state slot saved")
    slotFrame = f
  elseif f == 90 then
    check(emu:loadStateBuffer(state), "state buffer loaded")
    check(emu:read16(0x03000008) == stateColour, "state restored the colour")
  end
end)

local once = 0
callbacks:oneshot("frame", function() once = once + 1 end)
local removed = 0
local removedId = callbacks:add("frame", function() removed = removed + 1 end)
callbacks:remove(removedId)

local bucket = storage:getBucket("progress")
bucket.runs = (bucket.runs or 0) + 1

callbacks:add("shutdown", function()
  check(frames >= 299, "frames seen " .. frames)
  check(keyFrames > 20 and keyMismatch == 0, "keys seen by the game " .. keyFrames .. ", " .. keyMismatch .. " mismatches")
  check(once == 1 and removed == 0, "oneshot and remove")
  check(watch:getY() == 1 and watch:cols() == 40, "text buffer cursor")
  check(bucket.runs >= 1, "storage bucket")
  console:log(string.format("mgba watch: %d checks, %d failed, %d frames", checks, failed, frames))
end)
console:log("mgba watch loaded")
