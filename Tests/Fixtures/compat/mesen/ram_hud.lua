-- A Mesen-style RAM watch, input bot and HUD for Retrolua's demo.nes (written for Retrolua's tests).
-- Everything happens in callbacks, as Mesen scripts do; the script checks what it reads, writes and presses
-- itself and prints a summary when it ends.
local checks, failed = 0, 0
local function check(ok, what)
  checks = checks + 1
  if not ok then
    failed = failed + 1
    emu.log("FAIL " .. what)
  end
end

local cpu, ram = emu.memType.nesMemory, emu.memType.nesInternalRam
local tick = 0            -- endFrame callbacks seen (frame numbers go back when a state loads)
local rightFrames = 0     -- frames the bot held Right
local startX = nil
local aWrites = {}        -- values the write callback saw at $05
local saved, savedX = nil, nil
local seenRight = false

local writeRef = emu.addMemoryCallback(function(address, value)
  aWrites[#aWrites + 1] = string.format("%04X=%d", address, value)
end, emu.callbackType.write, 0x0005)

emu.addEventCallback(function()
  -- The bot: Right for 30 frames, then A pressed on three separate frames.
  if tick >= 10 and tick < 40 then
    emu.setInput({ right = true }, 0)
    rightFrames = rightFrames + 1
  elseif tick == 50 or tick == 52 or tick == 54 then
    emu.setInput({ a = true }, 0)
  end
end, emu.eventType.inputPolled)

local function hud()
  local state = emu.getState()
  local x, y = emu.read(0x03, cpu), emu.read(0x04, ram)
  emu.drawRectangle(10, 40, 40, 20, 0x0000FF00, true)            -- opaque green, filled
  emu.drawRectangle(60, 40, 20, 20, 0xFF0000)                    -- red outline
  emu.drawRectangle(100, 40, 20, 20, 0xFF00FF00, true)           -- alpha FF: invisible
  emu.drawLine(10, 70, 50, 70, 0xFFFF00)
  emu.drawPixel(5, 80, 0xFF00FF)
  emu.drawString(130, 40, "X " .. x .. " Y " .. y, 0xFFFFFF, 0x000000FF)
  emu.drawString(130, 60, state.frameCount, 0xFFFFFF)           -- a number, on Mesen's default background
  emu.drawRectangle(x, y, 8, 8, 0x00FFFF)                         -- the player's box
end

emu.addEventCallback(function()
  tick = tick + 1
  local state = emu.getState()
  if tick == 1 then
    check(state.consoleType == "Nes", "consoleType " .. tostring(state.consoleType))
    check(state["ppu.frameCount"] == state.frameCount, "ppu.frameCount")
    check(state.ppu.frameCount == state.frameCount, "Mesen 1 state.ppu.frameCount")
    check(emu.getMemorySize(ram) == 2048, "internal RAM size")
    check(emu.getRomInfo().name == "demo", "rom name " .. tostring(emu.getRomInfo().name))
    local size = emu.getScreenSize()
    check(size.width == 256 and size.height == 240, "screen size " .. size.width .. "x" .. size.height)
    check(emu.getDrawSurfaceSize().height == 240, "draw surface height")
    check(emu.measureString("abc").height == 9, "measureString height")
  elseif tick == 9 then
    startX = emu.read(0x03, emu.memType.cpu)  -- Mesen 1's name for the CPU bus
  elseif tick == 20 then
    seenRight = emu.getInput(0).right
  elseif tick == 45 then
    check(emu.read(0x03, cpu) == (startX + rightFrames) % 256, "X moved by " .. rightFrames)
    check(seenRight, "getInput saw Right")
  elseif tick == 60 then
    check(emu.read(0x05, cpu) == 3, "A counter " .. emu.read(0x05, cpu))
    check(#aWrites == 3, "write callback calls: " .. table.concat(aWrites, " "))
    check(aWrites[3] == "0005=3", "last write seen " .. tostring(aWrites[3]))
    emu.removeMemoryCallback(writeRef, emu.callbackType.write, 0x0005)
    -- Writes and reads of every width, signed too.
    emu.write(0x0300, 0xFE, ram)
    check(emu.read(0x0300, cpu, true) == -2, "signed read")
    emu.write16(0x0302, 0xBEEF, cpu)
    check(emu.read16(0x0302, ram) == 0xBEEF, "read16")
    check(emu.readWord(0x0302, ram) == 0xBEEF, "readWord")
    emu.write32(0x0304, 0x12345678, cpu)
    check(emu.read32(0x0304, cpu) == 0x12345678, "read32")
    check(emu.read(0x0307, cpu) == 0x12, "little-endian")
    emu.write(0x04, 100, ram)
  elseif tick == 61 then
    check(emu.read(0x04, cpu) == 100, "the game kept the Y we wrote")
    emu.addCheat(emu.cheatType.nesCustom, "0310:2A")
  elseif tick == 63 then
    check(emu.read(0x0310, ram) == 0x2A, "RAM cheat applied")
    emu.clearCheats()
    emu.write(0x0310, 0, ram)
  elseif tick == 65 then
    check(emu.read(0x0310, ram) == 0, "cheat cleared")
  elseif tick == 100 then
    saved, savedX = emu.createSavestate(), emu.read(0x03, cpu)
    check(type(saved) == "string" and #saved > 1000, "savestate bytes")
  elseif tick == 105 then
    emu.write(0x03, 7, cpu)
  elseif tick == 110 then
    check(emu.loadSavestate(saved), "state loaded")
    check(emu.read(0x03, cpu) == savedX, "state restored X")
  elseif tick == 120 then
    local pixel = emu.getPixel(0, 120)
    check(pixel == 0xFF153CFE, string.format("background pixel %08X", pixel))
    local buffer = emu.getScreenBuffer()
    check(#buffer == 256 * 240, "screen buffer size " .. #buffer)  -- the whole NES frame, numbered from 1
    check(buffer[120 * 256 + 1] == 0x153CFE, string.format("screen buffer %06X", buffer[120 * 256 + 1]))
    check(buffer[1] == 0 and buffer[0] == 0, "the rows the core crops are black")
    check(emu.isKeyPressed("Left Arrow") == false, "no key held")
    check(emu.getMouseState().left == false, "mouse")
    local png = emu.takeScreenshot()
    check(png:sub(2, 4) == "PNG", "takeScreenshot is a PNG")
    local folder = emu.getScriptDataFolder()
    local file = io.open(folder .. "/notes.txt", "w")
    check(file ~= nil, "data folder writable")
    if file then file:write("x=" .. savedX) file:close() end
    emu.displayMessage("Test", "half way")
  elseif tick == 150 then
    emu.drawRectangle(0, 0, 30, 30, 0x00FF0000, true, 0)  -- until clearScreen
  elseif tick == 151 then
    emu.clearScreen()
    -- A shape that lasts: drawn once, shown for 400 frames; one that waits 1000 frames never shows.
    emu.drawRectangle(200, 180, 10, 10, 0x000000FF, true, 400)
    emu.drawPixel(0, 8, 0x00FFFFFF, 1, 1000)
  end
  if tick >= 290 then
    -- Paint a red block into the screen buffer (Mesen's rows: the whole 256x240 frame) and put it back. It replaces
    -- the whole picture, shapes drawn before it included: the hud is drawn after it.
    local buffer, size = emu.getScreenBuffer(), emu.getScreenSize()
    for y = 180, 189 do
      for x = 220, 239 do buffer[y * size.width + x + 1] = 0xFF0000 end
    end
    emu.setScreenBuffer(buffer)
  end
  if tick >= 250 then hud() end
end, emu.eventType.endFrame)

local frames = 0
local startRef = emu.addEventCallback(function() frames = frames + 1 end, emu.eventType.startFrame)
emu.addEventCallback(function()
  emu.removeEventCallback(startRef, emu.eventType.startFrame)
end, emu.eventType.reset)

emu.addEventCallback(function()
  check(tick >= 299, "frames seen " .. tick)
  check(frames == tick, "startFrame and endFrame ran alike")
  emu.log(string.format("mesen hud: %d checks, %d failed", checks, failed))
end, emu.eventType.scriptEnded)
emu.log("mesen hud loaded")
