-- Reactive bot for the "Dodge" NES game (examples/roms/dodge): reads the game's RAM every frame and
-- picks one of nine d-pad moves (eight directions or none). Each move is scored by holding it for the
-- next LOOKAHEAD frames while the visible hazards keep falling at their known speeds: a move whose
-- path touches a hazard (with a safety margin) is penalised, sooner collisions more, and among the
-- safest moves the one that ends nearest the coin wins. No savestates, no randomness: the same ROM
-- always gives the same run.
--
--   scripts/build-roms
--   retrolua run build/roms/dodge.nes --headless --script examples/bots/reactive.lua
--
-- Prints one line, "won in N frames, score S, lives L" (exit code 0) or "lost at frame N, score S"
-- (exit code 1, also when MAX_FRAMES pass without a win). N is the game's frame counter ($00-$01), the
-- number of frames the game has run (its first frame is the 5th frame after power-on).
-- RAM map: examples/roms/dodge/README.md.

local MAX_FRAMES = 10000
local LOOKAHEAD = 14          -- frames each candidate move is simulated ahead
local MARGIN = 3              -- extra pixels kept between the player and a hazard
local HIT = 7 + MARGIN        -- the game hits at |dx| < 7 and |dy| < 7

local FRAME, STATE, PLAYER_X, PLAYER_Y, LIVES, SCORE = 0x00, 0x05, 0x06, 0x07, 0x08, 0x09
local COIN_X, COIN_Y = 0x0D, 0x0E
local HZ_X, HZ_Y, HZ_SPD, HZ_WAIT = 0x20, 0x28, 0x38, 0x40
local HAZARDS = 6
local MIN_X, MAX_X, MIN_Y, MAX_Y, SPEED = 8, 240, 40, 208, 2
local REACH = HIT + SPEED * LOOKAHEAD  -- a hazard further than this on an axis cannot matter

local MOVES = {
  { dx = 0, dy = 0 }, { dx = 1, dy = 0 }, { dx = -1, dy = 0 }, { dx = 0, dy = 1 }, { dx = 0, dy = -1 },
  { dx = 1, dy = 1 }, { dx = 1, dy = -1 }, { dx = -1, dy = 1 }, { dx = -1, dy = -1 },
}

local function clamp(v, lo, hi)
  if v < lo then return lo elseif v > hi then return hi end
  return v
end

-- Falling hazards that could reach the player within LOOKAHEAD frames: positions and speeds (px per
-- frame) in reused arrays — the bot runs every frame, so it allocates nothing.
local hx, hy, hv, hazard_count = {}, {}, {}, 0
local function find_hazards(ram, px, py)
  hazard_count = 0
  for i = 1, HAZARDS do
    if ram:byte(HZ_WAIT + i) == 0 then
      local x, y, v = ram:byte(HZ_X + i), ram:byte(HZ_Y + i), ram:byte(HZ_SPD + i) / 16
      if math.abs(x - px) < REACH and y < py + REACH and y + v * LOOKAHEAD > py - REACH then
        hazard_count = hazard_count + 1
        hx[hazard_count], hy[hazard_count], hv[hazard_count] = x, y, v
      end
    end
  end
end

local abs = math.abs

-- Danger of holding a move for LOOKAHEAD frames: sum over predicted overlaps, weighted by how soon.
-- Gives up once it reaches `bound` (a move that dangerous cannot be the best).
local function danger(px, py, move, bound)
  local total = 0
  local step_x, step_y = move.dx * SPEED, move.dy * SPEED
  local x, y = px, py
  for t = 1, LOOKAHEAD do
    x, y = x + step_x, y + step_y
    if x < MIN_X then x = MIN_X elseif x > MAX_X then x = MAX_X end
    if y < MIN_Y then y = MIN_Y elseif y > MAX_Y then y = MAX_Y end
    for h = 1, hazard_count do
      if abs(x - hx[h]) < HIT and abs(y - (hy[h] + hv[h] * t)) < HIT then
        total = total + (LOOKAHEAD + 1 - t) ^ 2
        if bound and total >= bound then return total end
      end
    end
  end
  return total
end

local distances, tried = {}, {}
local buttons = {}

-- The safest move, nearest to the coin (ties: the order of MOVES). Moves are tried nearest first,
-- so the first safe one ends the search — without hazards nearby, that is the first.
local function choose()
  local ram = memory.read_bytes(0, 0x46)
  local px, py = ram:byte(PLAYER_X + 1), ram:byte(PLAYER_Y + 1)
  local cx, cy = ram:byte(COIN_X + 1), ram:byte(COIN_Y + 1)
  find_hazards(ram, px, py)
  for i, move in ipairs(MOVES) do
    local x = clamp(px + move.dx * SPEED, MIN_X, MAX_X)
    local y = clamp(py + move.dy * SPEED, MIN_Y, MAX_Y)
    distances[i] = math.max(math.abs(x - cx), math.abs(y - cy))
    tried[i] = false
  end
  local best, best_danger
  for _ = 1, #MOVES do
    local next_move
    for i = 1, #MOVES do
      if not tried[i] and (not next_move or distances[i] < distances[next_move]) then next_move = i end
    end
    tried[next_move] = true
    local d = hazard_count > 0 and danger(px, py, MOVES[next_move], best_danger) or 0
    if not best or d < best_danger then best, best_danger = MOVES[next_move], d end
    if d == 0 then break end
  end
  buttons.right, buttons.left, buttons.down, buttons.up = best.dx > 0, best.dx < 0, best.dy > 0, best.dy < 0
  return buttons
end

-- The game clears RAM during the first frames after power-on and handles its first NMI (and first
-- joypad poll) in the 5th frame; before that the RAM may hold the emulator's power-on garbage.
for _ = 1, 4 do emu.frameadvance() end

local frames, milestone = 0, 5
while frames < MAX_FRAMES and memory.read_u8(STATE) == 0 do
  joypad.set(1, choose())
  emu.frameadvance()
  frames = frames + 1
  -- For comparisons (`--json`): the frame (counted from power-on) each 5 points were reached.
  if memory.read_u16_le(SCORE) >= milestone then
    emu.result("frames_to_" .. milestone, emu.framecount())
    milestone = milestone + 5
  end
end
emu.result("score", memory.read_u16_le(SCORE))
emu.result("lives", memory.read_u8(LIVES))

local score = memory.read_u16_le(SCORE)
if memory.read_u8(STATE) == 2 then
  print(string.format("won in %d frames, score %d, lives %d", memory.read_u16_le(FRAME), score, memory.read_u8(LIVES)))
  emu.exit(0)
else
  print(string.format("lost at frame %d, score %d", memory.read_u16_le(FRAME), score))
  emu.exit(1)
end
