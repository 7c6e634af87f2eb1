-- Search bot for the "Dodge" NES game (examples/roms/dodge): a beam search with savestate branching
-- that finds an input sequence collecting TARGET coins without losing a life, in as few frames as it
-- can, and saves it as a movie: dodge-search.rlm in the data folder (~/.local/share/retrolua/data/), or
-- $RETROLUA_SEARCH_OUT (the tracked examples/bots/dodge-search.rlm was made with it pointing there).
-- `retrolua movie verify` replays it.
--
--   retrolua run build/roms/dodge.nes --headless --script examples/bots/search.lua
--
-- Each search step holds one of nine d-pad moves for STEP frames from every state in the beam, keeps
-- the BEAM best results (more coins first, then no lost life, then nearest to the coin), and repeats.
-- The movie is recorded from power-on while searching; every savestate made during a movie carries
-- its input, so loading the winning state in read-write mode makes its timeline the movie's.
-- Prints "reached score S in N frames after trying B branches; wrote PATH"; exit code 0, or 1 when
-- MAX_STEPS pass without reaching the target. Deterministic. RAM map: examples/roms/dodge/README.md.

local TARGET = tonumber(os.getenv("RETROLUA_SEARCH_TARGET") or "5")
local STEP, BEAM, MAX_STEPS = 4, 3, 400
-- Never into the source tree by default: the data folder is the one scripts may always write.
local OUT = os.getenv("RETROLUA_SEARCH_OUT") or (emu.paths().data .. "/dodge-search.rlm")

local FRAME, PLAYER_X, PLAYER_Y, LIVES, SCORE, COIN_X, COIN_Y = 0x00, 0x06, 0x07, 0x08, 0x09, 0x0D, 0x0E

local MOVES = {
  {}, { right = true }, { left = true }, { down = true }, { up = true },
  { up = true, right = true }, { down = true, right = true }, { up = true, left = true }, { down = true, left = true },
}

-- Higher is better: coins, then lives, then closeness to the coin.
local function value()
  local dx = math.abs(memory.read_u8(PLAYER_X) - memory.read_u8(COIN_X))
  local dy = math.abs(memory.read_u8(PLAYER_Y) - memory.read_u8(COIN_Y))
  return memory.read_u16_le(SCORE) * 100000 + memory.read_u8(LIVES) * 10000 - math.max(dx, dy)
end

assert(movie.record(OUT, { from = "power", overwrite = true, verify = true,
                           author = "examples/bots/search.lua (beam search)" }))
movie.set_rerecord_counting(false)
-- The game starts on its own a few frames after power-on.
while memory.read_u16_le(FRAME) == 0 do emu.frameadvance() end

local beam = { { state = savestate.create(), value = value() } }
local tried, best = 0, nil
for _ = 1, MAX_STEPS do
  local candidates = {}
  for _, node in ipairs(beam) do
    for _, move in ipairs(MOVES) do
      assert(node.state:load())
      for _ = 1, STEP do
        joypad.set(1, { up = move.up or false, down = move.down or false, left = move.left or false, right = move.right or false })
        emu.frameadvance()
      end
      tried = tried + 1
      candidates[#candidates + 1] = { state = savestate.create(), value = value(), order = #candidates,
                                      score = memory.read_u16_le(SCORE), lives = memory.read_u8(LIVES) }
    end
  end
  table.sort(candidates, function(p, q) return p.value > q.value or (p.value == q.value and p.order < q.order) end)
  beam = { table.unpack(candidates, 1, BEAM) }
  if beam[1].score >= TARGET then best = beam[1]; break end
end

if not best then
  print("no solution within " .. MAX_STEPS .. " steps")
  emu.exit(1)
  return
end
assert(best.state:load())
emu.result("frames", movie.frame())
emu.result("score", best.score)
assert(movie.stop())
print(string.format("reached score %d in %d frames after trying %d branches; wrote %s", best.score,
                    best.state:frame(), tried, OUT))
emu.exit(0)
