-- The SyncTest (as GGPO's): one process, no peer, that after every frame loads the state of N frames
-- ago and replays them unseen on the same inputs (seeded, random, on ports 1 and 2: only buttons the
-- core says each pad has, never two opposite directions), then checks the replay reached what the first
-- run did: every memory domain (retrolua.sync_state) and the savestate's bytes. Verdicts:
--   deterministic — memory and state identical after every replay (exit 0);
--   time-dependent state — memory identical after every replay; the core's savestates change with no
--     frame run (they hold the wall-clock time), so their bytes cannot be compared (exit 0);
--   deterministic in memory — memory identical after every replay, but the state's bytes differed after
--     some: the core keeps state outside memory (sound, timing) that a load does not restore (exit 0);
--   NOT deterministic — memory differed (or, on a core without memory domains, the state): the first
--     frame whose replay differed, what differed and the buttons held (exit 1).
-- Netplay's desync check compares memory for the same reasons (retrolua.netplay).
-- `retrolua netplay-check ROM --core X` runs it (the netplay default calls `check.run`).

local sync = require("retrolua.sync_state")

local check = {}

--- Frames the check waits for a core that cannot save its state yet (parallel_n64 at its first frame).
check.WAIT_FRAMES = 60

-- A small LCG, so the inputs are the same on every run and every Lua.
local function generator(seed)
  local value = seed & 0xffffffff
  return function()
    value = (value * 1103515245 + 12345) & 0x7fffffff
    return value >> 8
  end
end

local BIT = joypad.BUTTONS
local UP, DOWN, LEFT, RIGHT = 1 << BIT.up, 1 << BIT.down, 1 << BIT.left, 1 << BIT.right

local function names_of(mask)
  return mask ~= 0 and table.concat(joypad.names(mask), "+") or "nothing"
end

-- "N replays", and from which frame when the core could not save its state in its first `waited` frames.
local function replays_text(replays, waited)
  if waited == 0 then return replays .. " replays" end
  return string.format("%d replays, from the core's frame %d: it could not save its state before", replays, waited + 1)
end

--- The buttons of `wanted` that each of ports 1 and 2 has, from the core's input descriptors: a core
--- that describes some port has no pad on the others; one that describes none gets `wanted` on both.
function check.pads(wanted)
  local masks, described = {}, false
  for port = 1, 2 do
    local names = joypad.buttons(port)
    if names then
      described = true
      masks[port] = joypad.mask(names) & wanted
    end
  end
  for port = 1, 2 do masks[port] = masks[port] or (described and 0 or wanted) end
  return masks
end

--- A random press of `pad`'s buttons that a hand can make on a d-pad: never up with down, nor left
--- with right.
function check.press(random, pad)
  local mask = random() & pad
  if mask & UP ~= 0 and mask & DOWN ~= 0 then mask = mask & ~(random() & 1 == 0 and UP or DOWN) end
  if mask & LEFT ~= 0 and mask & RIGHT ~= 0 then mask = mask & ~(random() & 1 == 0 and LEFT or RIGHT) end
  return mask
end

--- Runs the check: `options.frames` (default 600), `options.rollback` (frames rolled back each frame,
--- default 8), `options.buttons` (the mask the random input may press, within each pad's buttons;
--- default all but select and start), `options.seed`; calls `options.on_done(report, ok, verdict)` at
--- the end (verdict "deterministic", "time-dependent", "memory", "desync" or "failed"; default: print
--- and exit).
function check.run(options)
  local frames, depth = options.frames or 600, options.rollback or 8
  local wanted = options.buttons or 0xfff3
  local random = generator(options.seed or 1)
  local ring, states, memories, inputs = {}, {}, {}, {}
  local frame, held, pads = 0, { 0, 0 }, nil
  local info = emu.info()
  local name = info.core .. " " .. (info.core_version or "")
  local done = options.on_done or function(report, ok, verdict)
    print(report)
    emu.result("netplay_check", verdict)
    emu.exit(ok and 0 or 1)
  end
  local scratch, timed, started, waited, finished = nil, nil, false, 0, false
  local outside  -- the first replay whose state differed while memory did not: {at=, first=, replay=, bytes=}

  local function finish(report, verdict)
    finished = true
    done("netplay-check: " .. name .. ": " .. report, verdict ~= "desync" and verdict ~= "failed", verdict)
  end

  -- Keeps `state` (reused when it still fits: some cores' states vary in size) holding the present.
  local function keep(state)
    if state and state:save() then return state end
    return savestate.create()
  end

  -- The first run's record of frame `at`: its state (in the ring), the state's hash and memory's.
  local function record(at)
    local slot = at % (depth + 1)
    ring[slot] = keep(ring[slot])
    if not timed then states[at] = ring[slot]:hash() end
    memories[at] = sync.memory()
    states[at - depth - 2], memories[at - depth - 2] = nil, nil
  end

  -- How the present differs from the first run's frame `at` (the one definition every comparison
  -- uses): nil when it does not; else `{memory = {domains…}, first =, replay =, failed =}` with the
  -- hashes of the first differing domain, or of the states. Memory decides; a state that differs while
  -- memory does not fails only a core without memory domains. A core whose states hold the time is
  -- compared by memory alone.
  local function compare(at)
    local now, names = sync.memory()
    local differing = sync.differing(memories[at], now)
    if #differing > 0 then
      return { memory = differing, first = memories[at][differing[1]], replay = now[differing[1]], failed = true }
    end
    if timed then return nil end
    scratch = keep(scratch)
    local hash = scratch:hash()
    if hash == states[at] then return nil end
    return { memory = differing, first = states[at], replay = hash, failed = #names == 0, at = at }
  end

  -- Notes the first state-only difference (how many bytes of the state differ) and goes on.
  local function note_outside(difference)
    if outside then return end
    local first, replayed = ring[difference.at % (depth + 1)]:bytes(), scratch:bytes()
    local bytes = math.abs(#first - #replayed)
    for index = 1, math.min(#first, #replayed) do
      if first:byte(index) ~= replayed:byte(index) then bytes = bytes + 1 end
    end
    outside = { at = difference.at, first = difference.first, replay = difference.replay, bytes = bytes,
                size = #first }
  end

  -- Replays frames `from`…`frame - 1` from the first run's state, as netplay's rollback does (only the
  -- last frame drawn); with `each`, compares after every frame and stops at the first that differs.
  local function replay(from, each)
    ring[from % (depth + 1)]:load({ quiet = true })
    for at = from, frame - 1 do
      emu.replay_frame(inputs[at], { video = at == frame - 1 })
      if each then
        local difference = compare(at + 1)
        if difference and difference.failed then return at + 1, difference end
      end
    end
    if not each then return frame, compare(frame) end
  end

  local function report_desync(from, at, difference, again)
    local what
    if #difference.memory > 0 then
      what = string.format("memory differs: %s (first run %s, replay %s)", table.concat(difference.memory, ", "),
                           difference.first:sub(1, 12), difference.replay:sub(1, 12))
    else
      what = string.format("the state differs, memory does not (first run %s, replay %s): the core keeps " ..
                           "state outside its memory domains that the replay did not reach",
                           difference.first:sub(1, 12), difference.replay:sub(1, 12))
    end
    local note = again and "" or "; replayed again frame by frame from the same state, every frame matched: " ..
                                 "what a replay reaches depends on what ran before the load"
    finish(string.format("NOT deterministic: replaying frames %d…%d reached another state at frame %d: %s; " ..
                         "held on frame %d: port 1 %s, port 2 %s%s", from, frame - 1, at, what, at - 1,
                         names_of(inputs[at - 1][1]), names_of(inputs[at - 1][2]), note), "desync")
  end

  -- The check starts at the first frame whose state the core can make.
  local function start()
    local keeps, problem = sync.keeps_time()
    if keeps == nil then
      waited = waited + 1
      if waited >= check.WAIT_FRAMES then
        finish(string.format("cannot check: the core could not save its state in its first %d frames (%s)",
                             waited, problem), "failed")
      end
      return
    end
    timed, started = keeps, true
    pads = check.pads(wanted)
    record(0)
  end

  event.on("frame_start", function()
    if finished or not started then return end
    -- Inputs held for a few frames at a time, as a player's are.
    if frame % 4 == 0 then held = { check.press(random, pads[1]), check.press(random, pads[2]) } end
    inputs[frame] = { held[1], held[2] }
    inputs[frame - depth - 2] = nil
    for port = 1, 2 do
      joypad.set(port, held[port])
      joypad.set_analog(port, "left", 0, 0)
      joypad.set_analog(port, "right", 0, 0)
    end
  end)

  event.on("frame_end", function()
    if finished then return end
    if not started then return start() end
    frame = frame + 1
    record(frame)
    if frame >= depth then
      local from = frame - depth
      local _, difference = replay(from, false)
      if difference and difference.failed then
        local at, first = replay(from, true)
        return report_desync(from, at or frame, first or difference, at ~= nil)
      elseif difference then
        note_outside(difference)
      end
    end
    if frame >= frames then
      -- One probe of the time can miss it (gambatte's states matched a second apart on its first frame):
      -- a verdict that compares the state's bytes measures it once more.
      if not timed then timed = sync.keeps_time(true) end
      local replays = replays_text(math.max(0, frames - depth + 1), waited)
      if timed then
        finish(string.format("time-dependent state: deterministic in memory: %d frames, each replayed from %d " ..
                             "frames back (%s), every memory domain identical; its savestates change " ..
                             "with no frame run (they hold the wall-clock time), so their bytes were not " ..
                             "compared (netplay compares memory on this core)", frames, depth, replays),
               "time-dependent")
      elseif outside then
        finish(string.format("deterministic in memory: %d frames, each replayed from %d frames back (%s), " ..
                             "every memory domain identical; but the state's bytes differed after a replay, " ..
                             "first at frame %d (%d of %d bytes; first run %s, replay %s): the core keeps state " ..
                             "outside memory (sound or timing) that a load does not restore (netplay compares " ..
                             "memory)", frames, depth, replays, outside.at, outside.bytes, outside.size,
                             outside.first:sub(1, 12), outside.replay:sub(1, 12)), "memory")
      else
        finish(string.format("deterministic: %d frames, each replayed from %d frames back (%s), " ..
                             "every state and memory domain identical", frames, depth, replays), "deterministic")
      end
    end
  end)
end

return check
