-- Rollback netplay for two players over UDP, written over savestates: each side runs its own input
-- `delay` frames late and predicts the other's (its last known input repeated) up to `prediction`
-- frames ahead; when the real input arrives and differs, it loads the state of the first wrong frame
-- and replays to the present unseen (emu.replay_frame: no sound, callbacks or events). The host
-- sends the joiner its state and save RAM after the joiner has proved its address (it echoes a
-- cookie: retrolua.netplay_guard) and after checking core, core version, content SHA-1 and the core
-- options that change emulation (retrolua.netplay_options); every `check_interval` frames both sides
-- hash the confirmed frame's memory domains (retrolua.sync_state: a savestate's bytes can differ
-- where the game does not — the time of day in gambatte's, sound bookkeeping in mGBA's Game Boy
-- states) and compare; a mismatch names the domains that differ and the host's state heals it
-- (retrolua.netplay_heal). The default
-- (lua/defaults/netplay.lua) drives a session from `--netplay`; a script with `--allow-net` can too:
--
--   local session = require("retrolua.netplay").new({ mode = "join", address = "192.0.2.7:55435" })
--   event.on("frame_start", function() session:frame_start() end)
--   event.on("frame_end", function() session:frame_end() end)
--
-- Everything a peer sends is untrusted: packets are parsed under pcall, sizes, counts and frame
-- numbers are bounded, inputs that contradict ones already received are ignored (and counted).
-- Two players; any number of spectators (retrolua.netplay_spectate, retrolua.netplay_watch), fed the
-- confirmed inputs, which also make the session's movie (retrolua.netplay_movie).

local sync = require("retrolua.sync_state")
local guard = require("retrolua.netplay_guard")
local core_options = require("retrolua.netplay_options")
local heal = require("retrolua.netplay_heal")
local adaptation = require("retrolua.netplay_delay")
local spectate = require("retrolua.netplay_spectate")

local netplay = {}

-- 3: the hello echoes the host's cookie (2: the check hash is of memory; 1 hashed the savestate). A peer
-- speaking another version is refused in its own version's words.
netplay.PROTOCOL = 3
local MAGIC = "RLNP"
local HEADER = "<c4BB"
local HEADER_SIZE = 6
local T = { hello = 1, refuse = 2, welcome = 3, chunk = 4, need = 5, ready = 6, input = 7, bye = 8, cookie = 9,
            heal = 10, healed = 11, delay = 12, watch = 13, feed = 14, watched = 15, over = 16 }
local CHUNK = 1200            -- state bytes per datagram (under the socket's 1400)
local NEED_MAX = 64           -- chunks asked for in one request
local INPUTS_MAX = 32         -- inputs in one packet (more than delay + prediction ever leaves unacknowledged)
local STATE_MAX = 64 << 20    -- the largest state (and save RAM) a joiner accepts
local HISTORY = 128           -- frames of inputs kept behind the present
local FUTURE = 256            -- frames past the present a peer may talk about

netplay.defaults = {
  delay = 2,            -- frames of local input delay (0…8)
  prediction = 8,       -- frames the remote input may be predicted before the game waits
  adaptive = true,      -- delay follows the round trip and jitter (from `delay` up), prediction the rollback cost
  check_interval = 60,  -- frames between desync checks (memory hashes)
  timeout = 5,          -- seconds without a packet before the session ends
  connect_timeout = 30, -- seconds a joiner keeps asking
  pace = "auto",        -- pace frames to the core's rate here: "auto" when headless (a window paces itself)
  stop_after = 0,       -- end the session after this many frames (0: never); for tests and bots
  core_options = "match", -- a joiner's: "host" takes the host's options that change emulation, for the session
}

-- The numbers of the first NEED_MAX chunks not yet in `parts` (0…chunks-1), packed for a `need`, and their count.
local function missing_chunks(parts, chunks)
  local wanted = {}
  for index = 0, chunks - 1 do
    if not parts[index] then
      wanted[#wanted + 1] = string.pack("<I4", index)
      if #wanted == NEED_MAX then break end
    end
  end
  return table.concat(wanted), #wanted
end

--- The RetroPad mask (bits as in `joypad.BUTTONS`) of a `joypad.get_player` table: what travels.
function netplay.mask_of(pad)
  local mask = 0
  for name, bit in pairs(joypad.BUTTONS) do  -- the pad also holds analog axes, which joypad.mask refuses
    if pad[name] then mask = mask | (1 << bit) end
  end
  return mask
end

--- A buttons table pressing exactly the buttons of `mask` (for `movie.set_input`, which takes tables).
function netplay.buttons_of(mask)
  local buttons = {}
  for _, name in ipairs(joypad.names(mask)) do buttons[name] = true end
  return buttons
end

--- "key=value" lines of the core options both sides must share (those that change emulation).
netplay.options_text = core_options.text

local function identity()
  local info = emu.info()
  local rom = info.rom or {}
  return { core = (info.core or ""):sub(1, 64), version = (info.core_version or ""):sub(1, 64),
           sha1 = (rom.sha1 or ""):sub(1, 40), options = core_options.text() }
end
netplay.identity = identity

local function save_ram_domain()
  for _, domain in ipairs(memory.domains()) do
    if domain.name == "save_ram" and domain.size > 0 then return domain end
  end
end

local function packet(kind, format, ...)
  return string.pack(HEADER, MAGIC, netplay.PROTOCOL, kind) .. string.pack(format, ...)
end

--- A packet's kind, or nil for anything that is not ours (wrong magic, version or size); for a packet
--- of another protocol version, nil, its version and its kind.
local function kind_of(data)
  if #data < HEADER_SIZE then return nil end
  local magic, version, kind = string.unpack(HEADER, data)
  if magic ~= MAGIC then return nil end
  if version ~= netplay.PROTOCOL then return nil, version, kind end
  return kind
end

local Session = {}
Session.__index = Session

--- A session: `options.mode` "host" (listening on `address`, default "*:55435") or "join" (the host at
--- `address`); other keys as `netplay.defaults`, plus `socket` (an open `net.udp`), `on_message(text)`
--- and `on_end(reason, failed)`.
function netplay.new(options)
  local self = setmetatable({}, Session)
  for key, value in pairs(netplay.defaults) do self[key] = options[key] == nil and value or options[key] end
  assert(options.mode == "host" or options.mode == "join", "netplay.new: mode must be \"host\" or \"join\"")
  assert(math.type(self.delay) == "integer" and self.delay >= 0 and self.delay <= 8,
         "netplay.new: delay must be an integer 0…8")
  assert(math.type(self.prediction) == "integer" and self.prediction >= 1 and self.prediction <= 30,
         "netplay.new: prediction must be an integer 1…30")
  assert(self.core_options == "match" or self.core_options == "host",
         "netplay.new: core_options must be \"match\" or \"host\"")
  self.mode, self.address = options.mode, options.address
  self.on_message = options.on_message or function(text) emu.message(text) end
  self.on_end = options.on_end or function() end
  local socket, problem = options.socket
  if not socket then
    socket, problem = net.udp({ bind = self.mode == "host" and (self.address or "*:55435") or "*:0" })
  end
  if not socket then error("netplay: " .. problem, 2) end
  self.socket = socket
  self.phase = self.mode == "host" and "listening" or "hello"
  self.identity = identity()
  self.started_at = net.clock()
  self.stats = { rollbacks = 0, rollback_frames = 0, max_rollback = 0, stall_frames = 0, stall_seconds = 0,
                 ignored = 0, conflicts = 0, checks = 0, ping_ms = 0, start_wait_ms = 0, heals = 0, heal_ms = 0, heal_bytes = 0 }
  self.ring, self.ring_frame, self.ring_digest, self.ring_domains = {}, {}, {}, {}
  self.ring_size = self.prediction + 2
  assert(type(self.adaptive) == "boolean", "netplay.new: adaptive must be a boolean")
  self.fixed_delay = options.fixed_delay  -- `--netplay-delay`: the delay stays as given
  self:setup_adaptive()
  self.replay_input = {}
  self.audience = self.mode == "host" and spectate.audience(self) or nil
  return self
end

-- The session starts at the state both sides now hold: frame 0 is the next frame run.
function Session:begin()
  self.phase = "running"
  self.frame = 0
  self:initial_delay()
  self.local_port, self.remote_port = self.mode == "host" and 1 or 2, self.mode == "host" and 2 or 1
  self.local_in, self.remote_in, self.used = {}, {}, {}
  for frame = 0, self.delay - 1 do self.local_in[frame] = 0 end
  self.local_count = self.delay         -- local inputs decided (frames 0 … local_count-1)
  self.remote_count = 0                 -- remote inputs received, contiguous from frame 0
  self.acked = 0                        -- our inputs the peer says it has
  self.remote_frame, self.remote_advantage, self.balance = 0, 0, 0
  self.local_hash, self.remote_hash, self.next_check = {}, {}, self.check_interval
  self.last_heard, self.last_sent, self.echo = net.clock(), 0, 0
  self.deadline = nil
  local info = emu.info()
  self.fps = info.fps or 60
  if self.pace == "auto" then self.pace = not info.window end
  -- Known now that frames have run (a core may describe its memory late).
  local _, domains = sync.memory()
  self.digest = #domains > 0 and sync.memory_digest or function(state) return state:hash() end
  self:save_ring(0)
  if self.recorder then self.recorder:start(0, self:ring_state(0)) end
  self.on_message(string.format("netplay: playing with %s (you are player %d, delay %d)", self.peer,
                                self.local_port, self.delay))
end

function Session:send(data)
  if self.peer then self.socket:send(data, self.peer) end
end

--- Ends the session with `reason`; the local game keeps running.
function Session:finish(reason, failed)
  if self.phase == "ended" then return end
  if self.peer and self.nonce then
    -- A trailing 1: a desync could not be healed, so the other side fails too.
    local bye = packet(T.bye, "<I4s1", self.nonce, reason:sub(1, 200)) .. (self.unhealed and "\1" or "")
    for _ = 1, 3 do self:send(bye) end
  end
  if self.slowed then emu.speed(1); netplay.balancing = false end
  if self.audience then self.audience:finish(reason) end
  self.phase, self.ended_reason, self.failed = "ended", reason, failed or false
  self.on_message("netplay: " .. reason)
  self.on_end(reason, failed)
end

-- MARK: the ring of states (the start of each unconfirmed frame)

function Session:save_ring(frame)
  local slot = frame % self.ring_size
  local state = self.ring[slot]
  if not (state and state:save()) then
    state = savestate.create()
    self.ring[slot] = state
  end
  self.ring_frame[slot] = frame
  -- A check frame's hash is taken now, while the present is that frame: memory, or the state's bytes
  -- for a core without memory domains.
  if frame % self.check_interval == 0 then self.ring_digest[slot], self.ring_domains[slot] = self.digest(state) end
  return state
end

function Session:ring_state(frame)
  local slot = frame % self.ring_size
  if self.ring_frame[slot] == frame then return self.ring[slot] end
end

-- MARK: inputs

function Session:predicted()
  return self.remote_in[self.remote_count - 1] or 0
end

function Session:ports(frame, remote)
  local input = self.replay_input
  input[self.local_port], input[self.remote_port] = self.local_in[frame] or 0, remote
  return input
end

function Session:send_input()
  local first = math.max(self.acked, self.local_count - INPUTS_MAX)
  local count = self.local_count - first
  local parts = { packet(T.input, "<I4I4I4I4i2ddB", self.nonce, self.remote_count, self.frame, first,
                         math.max(-32768, math.min(32767, math.floor(self:advantage() + 0.5))), net.clock(),
                         self.echo, count) }
  for frame = first, self.local_count - 1 do parts[#parts + 1] = string.pack("<I2", self.local_in[frame]) end
  parts[#parts + 1] = self:check_payload()
  self:send(table.concat(parts))
  self.last_sent = net.clock()
end

-- Frames we are ahead of the peer, as seen from here (its last frame plus half the round trip).
function Session:advantage()
  return self.frame - (self.remote_frame + (self.stats.ping_ms / 2000) * self.fps)
end

-- MARK: receiving

function Session:receive_all()
  for _ = 1, 256 do
    local data, from = self.socket:receive()
    if not data then return end
    local ok, problem = pcall(self.handle, self, data, from)
    if not ok then
      self.stats.ignored = self.stats.ignored + 1
      self.last_problem = tostring(problem)
    end
  end
end

function Session:handle(data, from)
  local kind, version, other = kind_of(data)
  if not kind then
    self.stats.ignored = self.stats.ignored + 1
    -- A player with another Retrolua: told why (a refusal keeps its layout in every version).
    if version and other == T.hello and self.phase == "listening" then
      self:refuse(from, string.format("the host speaks netplay protocol %d, you %d: use the same Retrolua version",
                                      netplay.PROTOCOL, version), version, #data)
    end
    return
  end
  if self.audience and self.audience:handle(kind, data, from) then return end
  if self.phase == "listening" then
    if kind == T.hello then self:on_hello(data, from) else self.stats.ignored = self.stats.ignored + 1 end
    return
  end
  if from ~= self.peer then
    -- Someone else: a third player is told, anything else dropped.
    if kind == T.hello then self:refuse(from, "a session is already running (two players only)", nil, #data) end
    self.stats.ignored = self.stats.ignored + 1
    return
  end
  local nonce = string.unpack("<I4", data, HEADER_SIZE + 1)
  if kind == T.refuse and self.phase == "hello" then
    local _, reason = string.unpack("<I4s2", data, HEADER_SIZE + 1)
    return self:on_refused(reason)
  end
  if nonce ~= self.nonce then self.stats.ignored = self.stats.ignored + 1; return end
  self.last_heard = net.clock()
  if kind == T.input then
    if self.phase == "sending" then self:begin() end  -- its first input says the joiner is ready
    if self.phase == "running" then self:on_input(data) end
  elseif kind == T.bye then
    local _, reason, rest = string.unpack("<I4s1", data, HEADER_SIZE + 1)
    self.unhealed = self.unhealed or data:byte(rest) == 1
    if self.stop_after > 0 and self.remote_count >= self.stop_after then
      self.peer_finished = true  -- it finished first; every input to the end is here: play on to it
    else
      self:finish("the other player left (" .. reason:gsub("[%c]", "?") .. ")", self.unhealed)
    end
  elseif kind == T.cookie and self.phase == "hello" then
    self:on_cookie(data)
  elseif kind == T.welcome and self.phase == "hello" then
    self:on_welcome(data)
  elseif kind == T.chunk and (self.phase == "receiving" or self.parts) then
    self:on_chunk(data)
  elseif kind == T.need and (self.phase == "sending" or self.healing) then
    self:on_need(data)
  elseif kind == T.ready and self.phase == "sending" then
    self:begin()
  elseif kind == T.heal and self.phase == "running" and self.mode == "join" then
    self:on_heal(data)
  elseif kind == T.healed and self.healing then
    self:on_healed(data)
  elseif kind == T.delay and self.phase == "running" and self.mode == "join" and not self.fixed_delay then
    self:on_delay(data)
  else
    self.stats.ignored = self.stats.ignored + 1
  end
end

function Session:on_input(data)
  local _, ack, their_frame, first, advantage, sent_at, echo, count, position =
    string.unpack("<I4I4I4I4i2ddB", data, HEADER_SIZE + 1)
  local horizon = self.frame + FUTURE
  -- Bounds first: a packet about frames far from ours, or claiming inputs we never sent, is dropped whole.
  if count > INPUTS_MAX or first + count > horizon or their_frame > horizon or ack > self.local_count
     or #data < position - 1 + 2 * count then
    self.stats.ignored = self.stats.ignored + 1
    return
  end
  local wrong = self.first_wrong
  for index = 0, count - 1 do
    local frame = first + index
    local mask = string.unpack("<I2", data, position + 2 * index)
    if frame < self.remote_count then
      if self.remote_in[frame] and self.remote_in[frame] ~= mask then self.stats.conflicts = self.stats.conflicts + 1 end
    elseif frame == self.remote_count then
      self.remote_in[frame], self.remote_count = mask, frame + 1
      if frame < self.frame and self.used[frame] ~= mask and (not wrong or frame < wrong) then wrong = frame end
    else
      break  -- a gap: the sender repeats everything we have not acknowledged
    end
  end
  self.first_wrong = wrong
  if ack > self.acked then self.acked = ack end
  if their_frame > self.remote_frame then self.remote_frame = their_frame end
  self.remote_advantage = advantage
  local now = net.clock()
  if sent_at == sent_at then self.echo = sent_at end  -- (not NaN)
  if echo > 0 and echo <= now and now - echo < 10 then
    local ping = (now - echo) * 1000
    self:sample_ping(ping)
    self.stats.ping_ms = self.stats.ping_ms == 0 and ping or self.stats.ping_ms * 0.9 + ping * 0.1
  end
  self:read_check(data, position + 2 * count, horizon)
end

-- MARK: the handshake

-- A refusal; to an address not proven (`limit`: the bytes it sent), cut to no more than that.
function Session:refuse(to, reason, version, limit)
  local now = net.clock()
  if not self.refused or self.refused_count > 1024 then self.refused, self.refused_count = {}, 0 end
  if (self.refused[to] or 0) + 0.5 > now then return end  -- at most twice a second per address
  if not self.refused[to] then self.refused_count = self.refused_count + 1 end
  self.refused[to] = now
  local head = string.pack(HEADER, MAGIC, version or netplay.PROTOCOL, T.refuse)
  local room = math.min(1200, (limit or math.huge) - #head - 6)
  if room < 1 then return end
  reason = reason:sub(1, room)
  self.socket:send(head .. string.pack("<I4s2", 0, reason), to)
end

-- What the host answers a hello without a valid cookie: the cookie, and only where it is no larger.
function Session:send_cookie(to, nonce, received)
  local reply = guard.fits(packet(T.cookie, "<I4c16", nonce, guard.cookie(to, net.clock())), received)
  if reply then self.socket:send(reply, to) end
end

function Session:on_hello(data, from)
  local nonce, core, version, sha1, options_hash, options, cookie =
    string.unpack("<I4s1s1s1I4s2s1", data, HEADER_SIZE + 1)
  -- Nothing but the (smaller) cookie until the sender shows it receives at its address.
  if not guard.valid(cookie, from, net.clock()) then return self:send_cookie(from, nonce, #data) end
  local mine = self.identity
  local reason, shown
  if core ~= mine.core then
    reason = "the host runs core " .. mine.core .. ", not " .. core
  elseif version ~= mine.version then
    reason = "the host runs " .. mine.core .. " " .. mine.version .. ", not version " .. version
  elseif sha1 ~= mine.sha1 then
    reason = "the host plays other content (SHA-1 " .. mine.sha1 .. ", yours " .. sha1 .. ")"
  elseif options_hash ~= core_options.digest(mine.options) then
    reason = "core options differ; the host has:\n" .. mine.options
    shown = "core options differ" .. (options ~= "" and ": " ..
      table.concat(core_options.differences(mine.options, options), ", ") or "") ..
      " (the joiner can take the host's with --netplay-options host)"
  end
  local printable = from:gsub("[%c]", "?")
  if reason then
    self.on_message("netplay: refused " .. printable .. ": " .. (shown or reason:gsub("\n.*", "")):gsub("[%c]", "?"))
    return self:refuse(from, reason)
  end
  self.peer, self.nonce = from, nonce
  local domain = save_ram_domain()
  local save_ram = domain and memory.read_bytes(0, domain.size, domain.name) or ""
  local state = savestate.create()
  self.blob = string.pack("<s4s4", state:bytes(), save_ram)
  self.chunks = (#self.blob + CHUNK - 1) // CHUNK
  self.budget, self.resends = guard.budget(), guard.resends()
  self.phase = "sending"
  self.on_message("netplay: " .. printable .. " joins; sending the game (" .. #self.blob .. " bytes)")
  self:transfer()
end

function Session:welcome()
  self:send(packet(T.welcome, "<I4I4I4", self.nonce, #self.blob, self.chunks))
  self.welcomed = self.welcomed or net.clock()
end

-- The host waits here (its game paused) until the joiner has the state and says so.
function Session:transfer()
  local started, last_welcome = net.clock(), 0
  while self.phase == "sending" do
    local now = net.clock()
    if now - last_welcome > 0.25 then self:welcome(); last_welcome = now end
    if now - started > self.timeout * 3 then
      self.on_message("netplay: the joiner did not take the game; listening again")
      self.phase, self.peer, self.nonce, self.blob, self.welcomed = "listening", nil, nil, nil, nil
      return
    end
    self.socket:wait(10)
    self:receive_all()
  end
  self.blob, self.welcomed, self.resends = nil, nil, nil
end

function Session:on_need(data)
  local _, count, position = string.unpack("<I4B", data, HEADER_SIZE + 1)
  if count > NEED_MAX or #data < position - 1 + 4 * count then self.stats.ignored = self.stats.ignored + 1; return end
  local now = net.clock()
  self.resends:measure(now - (self.welcomed or now))
  for index = 0, count - 1 do
    local chunk = string.unpack("<I4", data, position + 4 * index)
    -- Each chunk once per round trip, all under the peer's byte budget (the joiner asks again).
    if chunk < self.chunks and self.resends:due(chunk, now) then
      local part = self.blob:sub(chunk * CHUNK + 1, (chunk + 1) * CHUNK)
      local reply = packet(T.chunk, "<I4I4s2", self.nonce, chunk, part)
      if not self.budget:take(#reply) then return end
      self:send(reply)
      self.resends:mark(chunk, now)
    end
  end
end

function Session:hello()
  local mine = self.identity
  self.nonce = self.nonce or math.random(1, 0xfffffffe)
  local options = #mine.options <= 1000 and mine.options or ""
  self.socket:send(packet(T.hello, "<I4s1s1s1I4s2s1", self.nonce, mine.core, mine.version, mine.sha1,
                          core_options.digest(mine.options), options, self.cookie or ""), self.address)
  self.peer = self.address
end

-- The host's cookie: the hello again at once, echoing it.
function Session:on_cookie(data)
  local _, cookie = string.unpack("<I4c16", data, HEADER_SIZE + 1)
  self.cookie = cookie
  self.handshake_rtt = self.hello_sent and net.clock() - self.hello_sent  -- the joiner's first delay
  self:hello()
  self.hello_sent = net.clock()
end

function Session:on_refused(reason)
  reason = reason:gsub("[%c]", function(c) return c == "\n" and "\n" or "?" end)
  local host_options = reason:match("^core options differ; the host has:\n(.*)$")
  if host_options then
    if self.core_options == "host" and not self.took_options then return self:take_options(host_options) end
    local differences = core_options.differences(host_options, self.identity.options)
    if #differences == 0 then return end  -- an answer to a hello sent before this side took the host's
    reason = "core options differ from the host's: " .. table.concat(differences, ", ") ..
      (self.took_options and "" or "; join with --netplay-options host to take the host's for this session")
  end
  self:finish("the host refused: " .. reason, true)
end

-- `--netplay-options host`: this side's deciding options become the host's, and the hello goes again.
function Session:take_options(host_options)
  self.took_options = true
  local made, problem = core_options.adopt(host_options)
  if not made then return self:finish("cannot take the host's core options: " .. tostring(problem), true) end
  self.on_message("netplay: taking the host's core options for this session: " .. table.concat(made, ", "))
  self.identity = identity()
  -- The next hello waits for a frame: the core takes the options as it runs, before the host's state.
  self.settling, self.hello_sent = true, nil
end

function Session:on_welcome(data)
  local _, size, chunks = string.unpack("<I4I4I4", data, HEADER_SIZE + 1)
  if size > STATE_MAX or chunks ~= (size + CHUNK - 1) // CHUNK or chunks == 0 then
    return self:finish("the host sent a game of " .. size .. " bytes (at most " .. STATE_MAX .. ")", true)
  end
  self.phase, self.size, self.chunks, self.parts, self.missing = "receiving", size, chunks, {}, chunks
  self:receive_game()
end

function Session:on_chunk(data)
  local _, index, part = string.unpack("<I4I4s2", data, HEADER_SIZE + 1)
  local expected = index == self.chunks - 1 and self.size - index * CHUNK or CHUNK
  if index >= self.chunks or #part ~= expected then self.stats.ignored = self.stats.ignored + 1; return end
  if not self.parts[index] then self.parts[index], self.missing = part, self.missing - 1 end
end

-- The joiner asks for what it lacks until it has the whole game, then loads it.
function Session:receive_game()
  local started, last_ask, before = net.clock(), 0, self.missing
  local last_progress = started
  while self.phase == "receiving" and self.missing > 0 do
    local now = net.clock()
    if self.missing ~= before then before, last_progress = self.missing, now end
    if now - last_progress > self.timeout then return self:finish("the host stopped sending the game", true) end
    -- A host trickling chunks must not hold the joiner for ever either.
    if now - started > 2 * self.connect_timeout then
      return self:finish("the game took over " .. 2 * self.connect_timeout .. " s to arrive", true)
    end
    if now - last_ask > 0.03 then
      local wanted, count = missing_chunks(self.parts, self.chunks)
      self:send(packet(T.need, "<I4B", self.nonce, count) .. wanted)
      last_ask = now
    end
    self.socket:wait(5)
    self:receive_all()
  end
  if self.phase ~= "receiving" then return end
  local parts = {}
  for index = 0, self.chunks - 1 do parts[index + 1] = self.parts[index] end
  self.parts = nil
  local ok, state_bytes, save_ram = pcall(string.unpack, "<s4s4", table.concat(parts))
  if not ok then return self:finish("the host's game is malformed", true) end
  local domain = save_ram_domain()
  if domain and #save_ram == domain.size then memory.write_bytes(0, save_ram, domain.name) end
  local state, problem = savestate.from_bytes(state_bytes)
  local loaded
  if state then loaded, problem = state:load() end
  if not loaded then return self:finish("cannot load the host's game: " .. tostring(problem), true) end
  self:send(packet(T.ready, "<I4", self.nonce))
  self:begin()
end

-- MARK: the frame

--- Call at `frame_start`: decides this frame's input on both ports (and sends ours).
function Session:frame_start()
  if self.phase ~= "running" then return end
  local frame = self.frame
  self:apply_delay()
  if self.local_count == frame + self.delay then
    self.local_in[self.local_count] = netplay.mask_of(joypad.get_player(1))
    self.local_count = self.local_count + 1
  end
  local remote = frame < self.remote_count and self.remote_in[frame] or self:predicted()
  self.used[frame] = remote
  joypad.set(self.local_port, self.local_in[frame])
  joypad.set(self.remote_port, remote)
  for port = 1, 2 do
    joypad.set_analog(port, "left", 0, 0)
    joypad.set_analog(port, "right", 0, 0)
  end
  self:send_input()
end

-- Loads the state of the first mispredicted frame and replays to the present on the inputs now known.
function Session:roll_back()
  self:apply_heal()
  local wrong = self.first_wrong
  self.first_wrong = nil
  if not wrong or wrong >= self.frame then return end
  local started = net.clock()
  local state = self:ring_state(wrong)
  if not state then
    return self:finish("cannot roll back to frame " .. wrong .. " (its state is gone)", true)
  end
  state:load({ quiet = true })
  local predicted = self:predicted()
  for frame = wrong, self.frame - 1 do
    local remote = frame < self.remote_count and self.remote_in[frame] or predicted
    self.used[frame] = remote
    emu.replay_frame(self:ports(frame, remote), { video = frame == self.frame - 1 })
    local next = frame + 1
    if next >= self.remote_count - 1 or next % self.check_interval == 0 then self:save_ring(next) end
  end
  local frames = self.frame - wrong
  self.last_rollback = frames
  self:sample_rollback(net.clock() - started, frames)
  local stats = self.stats
  stats.rollbacks, stats.rollback_frames = stats.rollbacks + 1, stats.rollback_frames + frames
  if frames > stats.max_rollback then stats.max_rollback = frames end
end

-- Hashes confirmed check frames whose state the ring still holds.
function Session:check_confirmed()
  local frame = self.next_check
  while frame < self.remote_count and frame <= self.frame do
    local state = self:ring_state(frame)
    if state then
      self.local_hash[frame] = self.ring_digest[frame % self.ring_size]
      self.local_domains = self.local_domains or {}
      self.local_domains[frame] = self.ring_domains[frame % self.ring_size]
      self.local_domains[frame - 8 * self.check_interval] = nil
      self.last_local_check = frame
      self.local_hash[frame - 8 * self.check_interval] = nil
      self.remote_hash[frame - 8 * self.check_interval] = nil
      self:compare(frame)
    end
    frame = frame + self.check_interval
  end
  self.next_check = frame
end

-- Waits (sending and receiving) while the game may not go on: more than `prediction` frames past the
-- last remote input, or at `stop_after` until every input before it is in.
function Session:wait_for_peer()
  local started, first = nil, self.remote_count == 0
  while self.phase == "running" do
    local blocked
    if self.stop_after > 0 and self.frame >= self.stop_after then
      blocked = self.remote_count < self.stop_after
    else
      blocked = self.frame - self.remote_count >= self.prediction
    end
    if not blocked then break end
    local now = net.clock()
    started = started or now
    if now - self.last_heard > self.timeout then
      return self:finish(string.format("no packet from the other player for %d s; playing alone", self.timeout))
    end
    if now - self.last_sent > 0.02 then self:send_input() end
    self.socket:wait(2)
    self:receive_all()
    self:roll_back()
  end
  if started then
    -- Visible only past the frame's own slack: a headless session would have slept until its deadline
    -- anyway (a window's slack is unknown here: all of the wait counts).
    local waited = net.clock() - started
    -- The joiner, a one-way trip ahead, waits once for the host's first input: the start, not a stall.
    if first then self.stats.start_wait_ms = waited * 1000; return end
    if self.stop_after > 0 and self.frame >= self.stop_after then return end  -- the end's, for the last inputs
    local slack = self.pace and self.deadline and (self.deadline + 1 / self.fps - started) or 0
    if waited > slack then
      self.stats.stall_frames = self.stats.stall_frames + 1
      self.stats.stall_seconds = self.stats.stall_seconds + (waited - math.max(0, slack))
    end
  end
end

-- Headless pacing (`pace`): the core's rate, a little slower while this side is ahead of the other.
function Session:pace_frame()
  local period = 1 / self.fps
  local now = net.clock()
  if self.balance > 1 then period = period * 1.1 end
  if not self.deadline or now > self.deadline + 4 * period then self.deadline = now end
  self.deadline = self.deadline + period
  while true do
    local left = self.deadline - net.clock()
    if left <= 0 then break end
    self.socket:wait(math.max(1, math.min(1000, math.floor(left * 1000))))
    self:receive_all()
    self:roll_back()
  end
end

--- Call at `frame_end`: receives, rolls back and replays when a prediction was wrong, keeps the state
--- of the new frame, checks hashes, and waits when the game may not run ahead further.
function Session:frame_end()
  local phase = self.phase
  if phase == "hello" then
    local now = net.clock()
    self.hello_started = self.hello_started or now
    if now - self.hello_started > self.connect_timeout then
      return self:finish("no answer from " .. self.address .. " after " .. self.connect_timeout .. " s", true)
    end
    if self.settling then
      self.settling = nil
    elseif now - (self.hello_sent or 0) > 0.5 then
      self:hello(); self.hello_sent = now
    end
  end
  if phase ~= "running" then
    if self.pace == "auto" then self.pace = not emu.info().window end
    -- Headless, waiting for the other player at the core's rate, not as fast as the CPU goes.
    self.socket:wait(self.pace and 16 or 0)
    self:receive_all()
    return
  end
  self.frame = self.frame + 1
  for frame = self.frame - HISTORY, self.frame - HISTORY - 4, -1 do
    self.local_in[frame], self.remote_in[frame], self.used[frame] = nil, nil, nil
  end
  self:receive_all()
  self:roll_back()
  if self.phase ~= "running" then return end
  if (self.frame >= self.remote_count - 1 or self.frame % self.check_interval == 0)
     and not self:ring_state(self.frame) then
    self:save_ring(self.frame)
  end
  if self.heal_due then self:heal() end
  if self.phase ~= "running" then return end
  self:wait_for_peer()
  self:check_confirmed()
  self:serve_confirmed()
  -- The inputs again half a frame after frame_start's packet: one lost datagram then costs no frame.
  if self.phase == "running" and net.clock() - self.last_sent > 0.004 then self:send_input() end
  self:adapt()
  self:announce_delay()
  -- Balancing: half the difference of the two sides' advantages, smoothed; over a frame, this side slows.
  self.balance = self.balance * 0.95 + 0.05 * (self:advantage() - self.remote_advantage) / 2
  if self.pace then
    self:pace_frame()
  else
    self:balance_window(netplay)  -- in a window the frontend paces: a little slower while this side is ahead
  end
  if self.stop_after > 0 and self.frame >= self.stop_after and self.remote_count >= self.stop_after then
    self:linger()
    self:finish("finished " .. self.stop_after .. " frames", false)
  end
end

-- At the end: keep answering until the peer has every input of ours (or a second passes).
function Session:linger()
  local started = net.clock()
  while self.acked < self.stop_after and not self.peer_finished and net.clock() - started < 2
        and self.phase == "running" do
    self:send_input()
    self.socket:wait(10)
    self:receive_all()
  end
end

--- What the OSD shows: `{phase=, ping_ms=, delay=, frame=, peer=, desync= (the first), healing= (a desync
--- not healed yet), last_heal= ({desync=, frame=, at=}), stats=}`.
function Session:status()
  return { phase = self.phase, ping_ms = self.stats.ping_ms, delay = self.delay, frame = self.frame,
           peer = self.peer, desync = self.desync, stats = self.stats, last_heal = self.last_heal,
           healing = (self.heal_due or self.awaiting_heal or self.pending_heal) and true or false }
end

heal.install(Session, { packet = packet, kinds = T, chunk = CHUNK, state_max = STATE_MAX, history = HISTORY,
                       future = FUTURE, need_max = NEED_MAX, header_size = HEADER_SIZE,
                       missing_chunks = missing_chunks })

spectate.install(Session, { packet = packet, kinds = T, header_size = HEADER_SIZE, chunk = CHUNK,
                           need_max = NEED_MAX, state_max = STATE_MAX, kind_of = kind_of,
                           save_ram_domain = save_ram_domain, missing_chunks = missing_chunks })

adaptation.install(Session, { packet = packet, kinds = T, header_size = HEADER_SIZE, future = FUTURE })

netplay.Session = Session
return netplay
