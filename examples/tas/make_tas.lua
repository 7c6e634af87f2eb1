-- A tool-assisted speedrun of the NES demo, made by a search script: bring the player from its start
-- (120, 112) to (200, 40) with the A counter at 5, in as few frames as possible.
--
--   retrolua run --headless --script examples/tas/make_tas.lua     (writes demo.rlm in the data folder,
--                                                                   ~/.local/share/retrolua/data/)
--   retrolua movie verify examples/tas/demo.rlm                    (replays the tracked one against its RAM log)
--
-- RETROLUA_TAS_OUT=examples/tas/demo.rlm (with --allow-files) regenerates the tracked movie.
--
-- How: it records a movie from power-on and runs a beam search with savestate branching. Every
-- savestate made during a movie carries the movie's input up to its frame, so after the search,
-- loading the best final state in read-write mode makes that state's input the movie's — the same
-- thing a TASer does by hand when they load the state of the best attempt. Rerecord counting is off
-- while searching (a bot loads thousands of states).

local TARGET_X, TARGET_Y, PRESSES = 200, 40, 5
local BEAM, MAX_FRAMES = 2, 200
-- Never into the source tree by default: the data folder is the one scripts may always write.
local OUT = os.getenv("RETROLUA_TAS_OUT") or (emu.paths().data .. "/demo.rlm")

local MOVES = {
  {}, { right = true }, { left = true }, { down = true }, { up = true },
  { up = true, right = true }, { down = true, right = true }, { up = true, left = true }, { down = true, left = true },
}

-- A lower bound on the frames still needed: the d-pad moves one pixel per axis per frame, and each
-- A press needs A released the frame before (the game counts new presses).
local function frames_left()
  local x, y, presses = memory.read_u8(0x03), memory.read_u8(0x04), memory.read_u8(0x05)
  local a_held = memory.read_u8(0x02) & 0x80 ~= 0
  local moving = math.max(math.abs(x - TARGET_X), math.abs(y - TARGET_Y))
  local left = math.max(0, PRESSES - presses)
  local pressing = left == 0 and 0 or 2 * left - (a_held and 0 or 1)
  return math.max(moving, pressing)
end

assert(movie.record(OUT, { from = "power", verify = true, overwrite = true,
                           author = "examples/tas/make_tas.lua (beam search)" }))
movie.set_rerecord_counting(false)

local beam = { { state = savestate.create(), left = frames_left() } }
local tried, done = 0, nil
for _ = 1, MAX_FRAMES do
  local candidates = {}
  for _, node in ipairs(beam) do
    for _, move in ipairs(MOVES) do
      assert(node.state:load())
      local want_a = memory.read_u8(0x05) < PRESSES and memory.read_u8(0x02) & 0x80 == 0
      joypad.set(1, { up = move.up or false, down = move.down or false, left = move.left or false,
                      right = move.right or false, a = want_a })
      emu.frameadvance()
      tried = tried + 1
      candidates[#candidates + 1] = { state = savestate.create(), left = frames_left(), order = #candidates }
    end
  end
  -- Fewest frames left first; ties keep the order tried, so the search is deterministic.
  table.sort(candidates, function(p, q) return p.left < q.left or (p.left == q.left and p.order < q.order) end)
  beam = { table.unpack(candidates, 1, BEAM) }
  if beam[1].left == 0 then done = beam[1]; break end
end

if not done then
  print("no solution within " .. MAX_FRAMES .. " frames")
  emu.exit(1)
  return
end
assert(done.state:load())  -- read-write: the movie's input becomes this state's timeline
movie.rerecords(0)
assert(movie.stop())
print(string.format("reached (%d, %d) with %d presses at movie frame %d after trying %d branches; wrote %s",
                    TARGET_X, TARGET_Y, PRESSES, done.state:frame(), tried, OUT))
emu.exit(0)
