-- Overlay bot for the "Dodge" NES game (examples/roms/dodge): shows what it sees and what it decides.
-- Each frame it reads the game's RAM, boxes every falling hazard (red when it threatens the player's
-- column, orange otherwise), draws a line to the coin (yellow) and an arrow for the move it picks,
-- and writes its reasoning in the corner. The policy is deliberately simple — step sideways out of
-- the column of a hazard about to land on you, otherwise head for the coin — so the picture is easy
-- to follow; examples/bots/reactive.lua is the strong player.
--
--   retrolua run build/roms/dodge.nes --script examples/bots/overlay.lua          (watch it in a window)
--   retrolua run build/roms/dodge.nes --headless --frames 600 --script examples/bots/overlay.lua --screenshot shot.png
--
-- RAM map: examples/roms/dodge/README.md.

local STATE, PLAYER_X, PLAYER_Y, LIVES, SCORE, COIN_X, COIN_Y = 0x05, 0x06, 0x07, 0x08, 0x09, 0x0D, 0x0E
local HZ_X, HZ_Y, HZ_SPD, HZ_WAIT, HAZARDS = 0x20, 0x28, 0x38, 0x40, 6
local DANGER_WIDTH, DANGER_FRAMES = 12, 30  -- "threatening": within 12 px sideways, landing within 30 frames

local decision = {}
local reason = "starting"

local function sign(v) return v > 0 and 1 or v < 0 and -1 or 0 end

local function decide()
  local px, py = memory.read_u8(PLAYER_X), memory.read_u8(PLAYER_Y)
  local threat
  for i = 0, HAZARDS - 1 do
    if memory.read_u8(HZ_WAIT + i) == 0 then
      local hx, hy, speed = memory.read_u8(HZ_X + i), memory.read_u8(HZ_Y + i), memory.read_u8(HZ_SPD + i) / 16
      local frames_to_land = (py - hy) / speed
      if math.abs(hx - px) < DANGER_WIDTH and hy < py + 6 and frames_to_land < DANGER_FRAMES then
        if not threat or frames_to_land < threat.frames then threat = { x = hx, frames = frames_to_land } end
      end
    end
  end
  if threat then
    local away = px >= threat.x and 1 or -1
    if px < 20 then away = 1 elseif px > 228 then away = -1 end
    reason = string.format("dodge: hazard lands in %d frames", math.floor(threat.frames))
    return { right = away > 0, left = away < 0 }
  end
  local dx, dy = sign(memory.read_u8(COIN_X) - px), sign(memory.read_u8(COIN_Y) - py)
  reason = "coin"
  return { right = dx > 0, left = dx < 0, down = dy > 0, up = dy < 0 }
end

event.on("input", function()
  if memory.read_u8(STATE) ~= 0 then return end
  decision = decide()
  joypad.set(1, decision)
end)

event.on("draw", function()
  -- The core may crop the NES picture's top and bottom 8 lines (overscan): RAM y is picture y + top.
  local _, height = gui.surface_size("emu")
  local top = (240 - height) // 2
  local px, py = memory.read_u8(PLAYER_X), memory.read_u8(PLAYER_Y) - top
  for i = 0, HAZARDS - 1 do
    if memory.read_u8(HZ_WAIT + i) == 0 then
      local hx, hy = memory.read_u8(HZ_X + i), memory.read_u8(HZ_Y + i) - top
      local near = math.abs(hx - px) < DANGER_WIDTH
      gui.rect(hx - 2, hy - 2, 12, 12, { color = near and "red" or "orange" })
    end
  end
  gui.line(px + 4, py + 4, memory.read_u8(COIN_X) + 4, memory.read_u8(COIN_Y) - top + 4, { color = "yellow" })
  local ax = (decision.right and 1 or 0) - (decision.left and 1 or 0)
  local ay = (decision.down and 1 or 0) - (decision.up and 1 or 0)
  gui.line(px + 4, py + 4, px + 4 + ax * 14, py + 4 + ay * 14, { color = "#00ff00" })
  gui.text(2, 2, string.format("score %d lives %d  %s", memory.read_u16_le(SCORE), memory.read_u8(LIVES), reason),
           { color = "white", bg = "#000000a0" })
end)

event.on("exit", function()
  emu.result("score", memory.read_u16_le(SCORE))
  emu.result("lives", memory.read_u8(LIVES))
end)
