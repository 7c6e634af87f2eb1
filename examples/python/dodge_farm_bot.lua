-- The bot that examples/python/ray_farm.py runs once per seed on Dodge (examples/roms/dodge, RAM map
-- in its README): it heads for the coin and, every HOLD frames, takes a random move instead with
-- probability NOISE percent, drawn from a fixed-seed LCG (SEED), so each seed is one reproducible game.
-- It records its score, lives and frames with emu.result and always exits 0 (a lost game is a result).
--
--   SEED=7 NOISE=30 retrolua run build/roms/dodge.nes --headless --script examples/python/dodge_farm_bot.lua --json

local SEED = math.tointeger(tonumber(os.getenv("SEED") or "1")) or 1
local NOISE = tonumber(os.getenv("NOISE") or "30")
local HOLD = math.tointeger(tonumber(os.getenv("HOLD") or "6")) or 6
local MAX_FRAMES = math.tointeger(tonumber(os.getenv("MAX_FRAMES") or "3000")) or 3000
local STATE, PLAYER_X, PLAYER_Y, LIVES, SCORE, COIN_X, COIN_Y = 0x05, 0x06, 0x07, 0x08, 0x09, 0x0D, 0x0E

local lcg = SEED % 0x80000000
local function next_random(n)
  lcg = (lcg * 1103515245 + 12345) % 0x80000000
  return (lcg >> 16) % n + 1
end

local MOVES = {
  { up = true }, { down = true }, { left = true }, { right = true },
  { up = true, left = true }, { up = true, right = true }, { down = true, left = true }, { down = true, right = true },
}

local function toward_coin()
  local dx = memory.read_u8(COIN_X) - memory.read_u8(PLAYER_X)
  local dy = memory.read_u8(COIN_Y) - memory.read_u8(PLAYER_Y)
  return { left = dx < -1, right = dx > 1, up = dy < -1, down = dy > 1 }
end

-- The game clears RAM and polls the joypad first in the 5th frame after power-on.
for _ = 1, 4 do emu.frameadvance() end
local frames, buttons = 0, {}
while frames < MAX_FRAMES and memory.read_u8(STATE) == 0 do
  if frames % HOLD == 0 then
    buttons = next_random(100) <= NOISE and MOVES[next_random(#MOVES)] or toward_coin()
  end
  joypad.set(1, buttons)
  emu.frameadvance()
  frames = frames + 1
end

emu.result("seed", SEED)
emu.result("score", memory.read_u16_le(SCORE))
emu.result("lives", memory.read_u8(LIVES))
emu.result("frames", frames)
emu.result("won", memory.read_u8(STATE) == 2)
print(string.format("seed %d: score %d, lives %d after %d frames", SEED, memory.read_u16_le(SCORE),
                    memory.read_u8(LIVES), frames))
emu.exit(0)
