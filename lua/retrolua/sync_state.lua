-- What "the same state" can mean on a core, for netplay's desync check, its SyncTest
-- (retrolua.netplay_check) and run-ahead's check: the memory domains' hashes (what the game is made of)
-- and the savestate's bytes. Some cores write the wall-clock time into their states (Debian's gambatte:
-- bytes that change with no frame run), so two saves of one game differ there: on those only memory
-- can be compared, and `keeps_time` says so.

local sync = {}

-- The domains a fingerprint covers: every one but `bus`, which only joins the others (kept when it is
-- the only one).
local function hashed_domains()
  local names, bus = {}, false
  for _, domain in ipairs(memory.domains()) do
    if domain.name == "bus" then bus = true elseif domain.size > 0 then names[#names + 1] = domain.name end
  end
  if #names == 0 and bus then names[1] = "bus" end
  return names
end

local domain_names
--- The memory domains' hashes now: `{[name] = sha1, …}` and the list of names in order.
function sync.memory()
  domain_names = domain_names or hashed_domains()
  local hashes = {}
  for _, name in ipairs(domain_names) do hashes[name] = memory.hash(name) end
  return hashes, domain_names
end

-- Five FNV-1a lanes (different seeds) over `text`: 40 hex digits, the width of a SHA-1, for one
-- digest of several domains' hashes (a desync check, not a defence against a forger).
local function digest40(text)
  local parts = {}
  for lane = 1, 5 do
    local hash = (2166136261 ~ (lane * 0x9e3779b1)) & 0xffffffff
    for i = 1, #text do hash = ((hash ~ text:byte(i)) * 16777619) & 0xffffffff end
    parts[lane] = string.format("%08x", hash)
  end
  return table.concat(parts)
end

--- The names of the domains `sync.memory()` hashes, in its order.
function sync.domain_names()
  domain_names = domain_names or hashed_domains()
  return domain_names
end

--- One digest (40 hex digits) of every hashed memory domain now, and the domains' hashes it joins.
function sync.memory_digest()
  local hashes, names = sync.memory()
  local joined = {}
  for index, name in ipairs(names) do joined[index] = name .. "=" .. hashes[name] end
  return digest40(table.concat(joined, "\n")), hashes
end

--- The hashed domains that differ between two `sync.memory()` tables, as a list of names.
function sync.differing(first, second)
  local names = {}
  for _, name in ipairs(domain_names or {}) do
    if first[name] ~= second[name] then names[#names + 1] = name end
  end
  return names
end

-- Sleeps until the wall clock's second has changed: on a socket's wait where the `net` module is
-- there (the frontend's defaults), else spinning on work slow enough to spare the instruction budget.
local function next_second()
  local start = os.time()
  local socket = net and net.udp and net.udp({ bind = "127.0.0.1:0" })
  while os.time() == start do
    if socket then socket:wait(50) else local _ = ("x"):rep(1 << 16) end
  end
  if socket then socket:close() end
end

local keeps
--- Whether the core's savestate changes with no frame run (two saves a wall-clock second apart
--- differ): it holds the time, so its bytes cannot be compared between two runs. Measured once, from
--- the first frame on (up to a second); nil with the reason while the core cannot save yet. `again`
--- measures once more where the first answer was false: two saves a second apart can match on a core
--- that does keep the time (Debian's gambatte, seen on its first frame), so a caller with evidence asks twice.
function sync.keeps_time(again)
  if keeps ~= nil and not (again and not keeps) then return keeps end
  local first, problem = sync.save()
  if not first then return nil, problem end
  next_second()
  local second
  second, problem = sync.save()
  if not second then return nil, problem end
  keeps = first:hash() ~= second:hash()
  return keeps
end

--- A new state of the present, or nil and why (a core may be unable to save before some frames ran).
function sync.save()
  local ok, state = pcall(savestate.create)
  if ok then return state end
  return nil, tostring(state):gsub("^[^:]*:%d+: ", "")
end

--- Whether a state made now restores exactly, as run-ahead needs: runs `count` frames unseen
--- (`emu.run_frame`, no picture or sound), loads the state, runs them again and compares memory after
--- each (and the state's bytes, on a core whose states do not hold the time); then loads the state.
--- Returns true; false and what differed; or nil and why while the core cannot save yet.
function sync.restores(count)
  local timed, problem = sync.keeps_time()
  if timed == nil then return nil, problem end
  local start = sync.save()
  if not start then return nil, "the core could not save its state" end
  local memories, states = {}, {}
  for frame = 1, count do
    emu.run_frame({ video = false, audio = false })
    memories[frame] = sync.memory()
    if not timed then states[frame] = savestate.create():hash() end
  end
  local verdict, why = true, nil
  start:load({ quiet = true })
  for frame = 1, count do
    emu.run_frame({ video = false, audio = false })
    local differing = sync.differing(memories[frame], sync.memory())
    if #differing > 0 then
      verdict, why = false, string.format("after loading a state, frame %d reached other memory (%s)", frame,
                                          table.concat(differing, ", "))
      break
    elseif not timed and savestate.create():hash() ~= states[frame] then
      verdict, why = false, string.format("after loading a state, frame %d reached another state", frame)
      break
    end
  end
  start:load({ quiet = true })
  return verdict, why
end

return sync
