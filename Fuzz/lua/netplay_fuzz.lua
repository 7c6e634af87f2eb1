-- Fuzzes netplay's packet handling (lua/retrolua/netplay.lua) under stock lua5.4, with the host's modules
-- stubbed: mutated handshake, chunk, need, input and bye packets go to sessions in every phase (a host
-- listening, sending its game and playing; a joiner saying hello, receiving and playing; a spectator
-- saying hello and watching), spectators' hellos, feeds, acknowledgements and ends too, and frames run
-- between them (prediction, rollback, hash checks).
--   lua5.4 Fuzz/lua/netplay_fuzz.lua [SECONDS] [SEED]
-- Whatever arrives, a packet's handling must not raise past the session, and the session's bounds must
-- hold: remote inputs never more than 256 + 32 frames past its own frame, acknowledgements never past
-- what it sent, no more chunks than announced, a phase it knows, and a listening host that stays so
-- sends an address that never echoed its cookie no more bytes than it received. Exits 1 with the failing input.

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
package.path = here .. "/../../lua/?.lua;" .. package.path

local seconds = tonumber(arg[1]) or 10
local seed = tonumber(arg[2]) or os.time()
math.randomseed(seed)

-- The host's modules, as far as netplay uses them.
local clock = 0
local State = {}
State.__index = State
function State.save() return true end
function State.load() return true end
function State.bytes() return string.rep("s", 3000) end
function State.hash() return string.rep("a", 40) end
_G.net = {
  clock = function() return clock end,
  udp = function() error("the fuzz hands sessions their socket") end,
  netplay = function() return nil end,
  cookie = function(text)  -- a stand-in keyed hash: another text, another cookie
    local hash = 7
    for i = 1, #text do hash = (hash * 31 + text:byte(i)) & 0xffffffffffff end
    return ("%016x"):format(hash)
  end,
}
_G.emu = {
  info = function() return { core = "fuzz", core_version = "1", fps = 60, window = false, rom = { sha1 = string.rep("0", 40) } } end,
  options = function() return { { key = "k", value = "v" }, { key = "k_palette", value = "p" } } end,
  option = function(_, value) return value end,
  message = function() end,
  replay_frame = function() end,
  speed = function() end,
}
_G.joypad = {
  BUTTONS = { b = 0, y = 1, select = 2, start = 3, up = 4, down = 5, left = 6, right = 7, a = 8, x = 9, l = 10, r = 11 },
  get_player = function() return { a = math.random() < 0.5, up = math.random() < 0.5 } end,
  mask = function(pad)
    local mask = 0
    for name, bit in pairs(_G.joypad.BUTTONS) do if pad[name] then mask = mask | (1 << bit) end end
    return mask
  end,
  names = function(mask)
    local names = {}
    for name, bit in pairs(_G.joypad.BUTTONS) do if mask >> bit & 1 == 1 then names[#names + 1] = name end end
    return names
  end,
  set = function() end,
  set_analog = function() end,
}
_G.savestate = {
  create = function() return setmetatable({}, State) end,
  from_bytes = function() return setmetatable({}, State) end,
}
_G.memory = {
  domains = function() return { { name = "save_ram", size = 8 } } end,
  hash = function() return string.rep("d", 40) end,
  read_bytes = function() return string.rep("\0", 8) end,
  write_bytes = function() end,
}

local netplay = require("retrolua.netplay")
local watch = require("retrolua.netplay_watch")

local STRANGER = "127.0.0.1:3"  -- never given a cookie: an address the host must not amplify to
local socket = { queue = {}, sent = 0 }
function socket.send(_, data, to)
  if to == STRANGER then socket.sent = socket.sent + #data end
  return true
end
function socket:receive()
  local item = table.remove(self.queue, 1)
  if item then return item[1], item[2] end
end
function socket:wait() clock = clock + 0.002; return #self.queue > 0 end
function socket.address() return "127.0.0.1:1" end

local PEER = "127.0.0.1:2"
-- Mostly this protocol's version; now and then another (a player with another Retrolua).
local function header(kind)
  return string.pack("<c4BB", "RLNP", math.random() < 0.95 and netplay.PROTOCOL or math.random(0, 255), kind)
end

local function input_packet(nonce)
  local count = math.random(0, 40)
  local parts = { header(7), string.pack("<I4I4I4I4i2ddB", nonce, math.random(0, 2000), math.random(0, 2000),
                                         math.random(0, 2000), math.random(-40000, 40000) % 65536 - 32768,
                                         clock, clock, count % 256) }
  for _ = 1, count do parts[#parts + 1] = string.pack("<I2", math.random(0, 0xffff)) end
  if math.random() < 0.3 then parts[#parts + 1] = string.pack("<I4c40", 60 * math.random(0, 40), string.rep("b", 40)) end
  return table.concat(parts)
end

-- Well-formed packets of every kind, to be mutated.
local function packet(nonce)
  local kind = math.random(1, 14)
  if kind == 11 then
    local cookie = math.random() < 0.5 and net.cookie(PEER .. "\n" .. math.floor(clock / 30)) or ""
    return header(13) .. string.pack("<I4s1s1s1I4s2s1", nonce, "fuzz", "1", string.rep("0", 40),
                                     math.random(0, 2^32 - 1), "", cookie)
  elseif kind == 12 then
    local count = math.random(0, 40)
    return header(14) .. string.pack("<I4I4B", nonce, math.random(0, 300), count % 256)
      .. string.rep("\1\0\2\0", count)
  elseif kind == 13 then return header(15) .. string.pack("<I4I4", nonce, math.random(0, 2^32 - 1))
  elseif kind == 14 then return header(16) .. string.pack("<I4I4s1", nonce, math.random(0, 300), "over")
  elseif kind == 1 then
    -- Half of them echo the cookie the fuzz's net.cookie gives the peer.
    local cookie = math.random() < 0.5 and net.cookie(PEER .. "\n" .. math.floor(clock / 30)) or ""
    return header(1) .. string.pack("<I4s1s1s1I4s2s1", nonce, "fuzz", "1", string.rep("0", 40),
                                    math.random(0, 2^32 - 1), "k=v", cookie)
  elseif kind == 2 then return header(2) .. string.pack("<I4s2", 0, "core options differ; the host has:\nk=w")
  elseif kind == 3 then return header(3) .. string.pack("<I4I4I4", nonce, math.random(0, 8000), math.random(0, 10))
  elseif kind == 4 then return header(4) .. string.pack("<I4I4s2", nonce, math.random(0, 10), string.rep("c", math.random(0, 1300)))
  elseif kind == 5 then
    local count = math.random(0, 70)
    local parts = { header(5), string.pack("<I4B", nonce, count % 256) }
    for _ = 1, count do parts[#parts + 1] = string.pack("<I4", math.random(0, 20)) end
    return table.concat(parts)
  elseif kind == 6 then return header(6) .. string.pack("<I4", nonce)
  elseif kind == 8 then return header(8) .. string.pack("<I4s1", nonce, "bye\0\n")
  elseif kind == 9 then return string.rep(string.char(math.random(0, 255)), math.random(0, 64))
  elseif kind == 10 then return header(9) .. string.pack("<I4c16", nonce, string.rep("q", 16))
  end
  return input_packet(nonce)
end

local function mutate(data)
  for _ = 1, math.random(0, 3) do
    local at = math.random(1, math.max(1, #data))
    local choice = math.random(1, 4)
    if choice == 1 then data = data:sub(1, at - 1) .. string.char(math.random(0, 255)) .. data:sub(at + 1)
    elseif choice == 2 then data = data:sub(1, at)
    elseif choice == 3 then data = data .. string.char(math.random(0, 255)):rep(math.random(1, 8))
    else data = data:sub(1, at - 1) .. "\255\255\255\127" .. data:sub(at + 4) end
  end
  return data
end

local function session_in(phase)
  if phase == "watch" or phase == "watching" then
    local spectator = watch.new({ address = PEER, socket = socket, timeout = 1, connect_timeout = 1,
                                  on_message = function() end })
    spectator.nonce = 7
    if phase == "watching" then spectator.phase, spectator.frame, spectator.count = "running", 0, 0 end
    return spectator
  end
  local mode = (phase == "listening" or phase == "sending" or phase == "host") and "host" or "join"
  local session = netplay.new({ mode = mode, address = PEER, socket = socket, stop_after = 0, timeout = 1,
                                connect_timeout = 1, pace = false, on_message = function() end })
  session.nonce, session.peer = 7, PEER
  if phase == "listening" then session.peer, session.nonce = nil, nil
  elseif phase == "sending" then
    session.phase, session.blob, session.chunks = "sending", string.rep("x", 5000), 5
  elseif phase == "receiving" then
    session.phase, session.size, session.chunks, session.parts, session.missing = "receiving", 5000, 5, {}, 5
  elseif phase ~= "hello" then
    session:begin()
  end
  return session
end

local function check(session, data)
  local ok = session.phase == "listening" or session.phase == "hello" or session.phase == "sending"
    or session.phase == "receiving" or session.phase == "running" or session.phase == "ended"
  if session.spectating and session.count > session.frame + 1200 + 32 then ok = false end
  if session.remote_count and session.remote_count > session.frame + 256 + 32 then ok = false end
  if session.acked and session.acked > session.local_count then ok = false end
  if session.parts then
    for index in pairs(session.parts) do if index >= session.chunks then ok = false end end
  end
  if not ok then
    io.stderr:write(string.format("netplay fuzz: a bound broke in phase %s after %q\n", session.phase, data))
    os.exit(1)
  end
end

local phases = { "listening", "sending", "host", "hello", "receiving", "join", "watch", "watching" }
local runs, packets, started = 0, 0, os.clock()
while os.clock() - started < seconds do
  local session = session_in(phases[math.random(#phases)])
  runs = runs + 1
  for _ = 1, math.random(1, 60) do
    local data = mutate(packet(math.random() < 0.9 and 7 or math.random(0, 2^32 - 1)))
    -- The transfer loops wait for more: hand them nothing else, and a clock that moves.
    local listening = session.phase == "listening"
    local ok, problem = pcall(function()
      socket.queue = { { data, math.random() < 0.95 and PEER or STRANGER } }
      socket.sent = 0
      session:receive_all()
      if listening and socket.sent > #data then
        error(string.format("a listening host sent a stranger %d bytes for %d", socket.sent, #data))
      end
      if session.phase == "running" and math.random() < 0.5 then
        session:frame_start()
        session:frame_end()
      end
    end)
    packets = packets + 1
    if not ok then
      io.stderr:write(string.format("netplay fuzz: raised %s after %q\n", tostring(problem), data))
      os.exit(1)
    end
    check(session, data)
    clock = clock + 0.016
  end
end
print(string.format("netplay fuzz: %d sessions, %d packets, seed %d: no failure", runs, packets, seed))
