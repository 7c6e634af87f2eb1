-- Rollback's cost as netplay pays it (lua/retrolua/netplay.lua): load the state of N frames ago, replay
-- N frames unseen on known input (the last drawn) and keep each replayed frame's state again; and one
-- frame's state kept, which every unconfirmed frame pays. CPU time (os.clock) over many repetitions.
local depths = { 1, 4, 8 }
local repeats = 200
local ring, size = {}, 10
local frame = 0
local input = { 0x0100, 0x0001 }

local function save(at)
  local slot = at % size
  if not (ring[slot] and ring[slot]:save()) then ring[slot] = savestate.create() end
end

event.on("frame_end", function()
  frame = frame + 1
  save(frame)
  if frame < 300 then return end
  local start = os.clock()
  for _ = 1, repeats do save(frame) end
  print(string.format("save_ms %.4f", (os.clock() - start) * 1000 / repeats))
  for _, depth in ipairs(depths) do
    start = os.clock()
    for _ = 1, repeats do
      ring[(frame - depth) % size]:load({ quiet = true })
      for at = frame - depth, frame - 1 do
        emu.replay_frame(input, { video = at == frame - 1 })
        save(at + 1)
      end
    end
    print(string.format("rollback_%d_ms %.4f", depth, (os.clock() - start) * 1000 / repeats))
  end
  start = os.clock()
  for _ = 1, repeats do emu.replay_frame(input) end
  print(string.format("replay_frame_ms %.4f", (os.clock() - start) * 1000 / repeats))
  emu.exit(0)
end)
