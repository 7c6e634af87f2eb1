-- The SyncTest (as GGPO's): one process, no peer, that after every frame loads the state of N frames
-- ago and replays them unseen on the same inputs (seeded, random, on ports 1 and 2), then checks the
-- replay reached the very state the first run did. A core that passes keeps netplay in sync; one that
-- fails is named with the first frame whose replay differed and the memory that differed.
-- `retrolua netplay-check ROM --core X` runs it (the netplay default calls `check.run`).

local netplay = require("retrolua.netplay")

local check = {}

-- A small LCG, so the inputs are the same on every run and every Lua.
local function generator(seed)
  local value = seed & 0xffffffff
  return function()
    value = (value * 1103515245 + 12345) & 0x7fffffff
    return value >> 8
  end
end

local NAMES = { [0] = "b", "y", "select", "start", "up", "down", "left", "right",
                "a", "x", "l", "r", "l2", "r2", "l3", "r3" }

local function names_of(mask)
  local names = {}
  for bit = 0, 15 do
    if (mask >> bit) & 1 == 1 then names[#names + 1] = NAMES[bit] end
  end
  return #names > 0 and table.concat(names, "+") or "nothing"
end

--- Runs the check: `options.frames` (default 600), `options.rollback` (frames rolled back each frame,
--- default 8), `options.buttons` (the mask the random input presses; default all but select and start),
--- `options.seed`; calls `options.on_done(report, ok)` at the end (default: print and exit).
function check.run(options)
  local frames, depth = options.frames or 600, options.rollback or 8
  local pressable = options.buttons or 0xfff3
  local random = generator(options.seed or 1)
  local ring, hashes, inputs = {}, {}, {}
  local frame, held = 0, { 0, 0 }
  local info = emu.info()
  local name = info.core .. " " .. (info.core_version or "")
  local done = options.on_done or function(report, ok)
    print(report)
    emu.result("netplay_check", ok and "ok" or "desync")
    emu.exit(ok and 0 or 1)
  end
  local scratch = savestate.create()
  local finished = false

  local function save(at)
    local slot = at % (depth + 1)
    -- A state that outgrew its object (some cores' states vary in size) gets a new one.
    if not (ring[slot] and ring[slot]:save()) then ring[slot] = savestate.create() end
    return ring[slot]
  end

  -- Which memory differs between the first run's state at `at` and the state now.
  local function differing_memory(at)
    local replayed = {}
    for _, domain in ipairs(memory.domains()) do replayed[domain.name] = memory.hash(domain.name) end
    if not scratch:save() then scratch = savestate.create() end
    ring[at % (depth + 1)]:load({ quiet = true })
    local names = {}
    for _, domain in ipairs(memory.domains()) do
      if memory.hash(domain.name) ~= replayed[domain.name] then names[#names + 1] = domain.name end
    end
    scratch:load({ quiet = true })
    return #names > 0 and table.concat(names, ", ") or "no memory domain (only state the core keeps elsewhere)"
  end

  -- The first replayed frame whose state differs from the first run's.
  local function locate(from)
    ring[from % (depth + 1)]:load({ quiet = true })
    for at = from, frame - 1 do
      emu.replay_frame(inputs[at])
      if not scratch:save() then scratch = savestate.create() end
      local hash = scratch:hash()
      if hash ~= hashes[at + 1] then return at + 1, hash end
    end
    return frame, scratch:hash()
  end

  event.on("frame_start", function()
    if finished then return end
    -- Inputs held for a few frames at a time, as a player's are.
    if frame % 4 == 0 then held = { random() & pressable, random() & pressable } end
    inputs[frame] = { held[1], held[2] }
    inputs[frame - depth - 2] = nil
    for port = 1, 2 do
      joypad.set(port, netplay.buttons_of(held[port]))
      joypad.set_analog(port, "left", 0, 0)
      joypad.set_analog(port, "right", 0, 0)
    end
  end)

  event.on("frame_end", function()
    if finished then return end
    frame = frame + 1
    hashes[frame] = save(frame):hash()
    hashes[frame - depth - 2] = nil
    if frame > depth then
      local from = frame - depth
      ring[from % (depth + 1)]:load({ quiet = true })
      for at = from, frame - 1 do emu.replay_frame(inputs[at], { video = at == frame - 1 }) end
      if not scratch:save() then scratch = savestate.create() end
      if scratch:hash() ~= hashes[frame] then
        finished = true
        local at, hash = locate(from)
        return done(string.format(
          "netplay-check: %s: NOT deterministic: replaying frames %d…%d reached another state at frame %d " ..
          "(first run %s, replay %s); differing: %s; held on frame %d: port 1 %s, port 2 %s", name, from,
          frame - 1, at, hashes[at]:sub(1, 12), hash:sub(1, 12), differing_memory(at), at - 1,
          names_of(inputs[at - 1][1]), names_of(inputs[at - 1][2])), false)
      end
    end
    if frame >= frames then
      finished = true
      done(string.format("netplay-check: %s: deterministic: %d frames, each replayed from %d frames back " ..
                         "(%d replays), every state identical", name, frames, depth, frames - depth), true)
    end
  end)
end

return check
