-- Random play for the "Dodge" NES game (examples/roms/dodge): every 8 frames it holds a new d-pad
-- direction (one of the eight, chosen uniformly) drawn from a tiny fixed-seed LCG, so a run is
-- reproducible. It is the baseline the reactive bot (examples/bots/reactive.lua) is compared with:
-- random play usually loses its three lives long before the winning score.
--
--   scripts/build-roms
--   retrolua run build/roms/dodge.nes --headless --script examples/bots/random_play.lua
--   SEED=7 retrolua run build/roms/dodge.nes --headless --script examples/bots/random_play.lua
--
-- Prints one line, "won in N frames, score S, lives L" (exit code 0) or "lost at frame N, score S"
-- (exit code 1, also when MAX_FRAMES pass without a win). N is the game's frame counter ($00-$01), the
-- number of frames the game has run (its first frame is the 5th frame after power-on).
-- RAM map: examples/roms/dodge/README.md.

local MAX_FRAMES = 10000
local HOLD = 8                -- frames each random direction is held
local FRAME, STATE, LIVES, SCORE = 0x00, 0x05, 0x08, 0x09

local DIRECTIONS = {
  { up = true }, { down = true }, { left = true }, { right = true },
  { up = true, left = true }, { up = true, right = true }, { down = true, left = true }, { down = true, right = true },
}

-- LCG with the ANSI C constants, modulo 2^31; the high bits are the random ones.
local seed = math.tointeger(tonumber(os.getenv("SEED") or "1")) or 1
local lcg = seed % 0x80000000
local function next_random(n)
  lcg = (lcg * 1103515245 + 12345) % 0x80000000
  return (lcg >> 16) % n + 1
end

-- The game clears RAM during the first frames after power-on and handles its first NMI (and first
-- joypad poll) in the 5th frame; before that the RAM may hold the emulator's power-on garbage.
for _ = 1, 4 do emu.frameadvance() end

local frames, buttons = 0, nil
while frames < MAX_FRAMES and memory.read_u8(STATE) == 0 do
  if frames % HOLD == 0 then buttons = DIRECTIONS[next_random(#DIRECTIONS)] end
  joypad.set(1, buttons)
  emu.frameadvance()
  frames = frames + 1
end

local score = memory.read_u16_le(SCORE)
if memory.read_u8(STATE) == 2 then
  print(string.format("won in %d frames, score %d, lives %d", memory.read_u16_le(FRAME), score, memory.read_u8(LIVES)))
  emu.exit(0)
else
  print(string.format("lost at frame %d, score %d", memory.read_u16_le(FRAME), score))
  emu.exit(1)
end
