-- Spectators, the host's side (retrolua.netplay): any number may watch a session, none can change it.
-- A spectator says hello with kind `watch`; like a player it must first echo the host's cookie
-- (retrolua.netplay_guard: nothing larger than its datagram goes to an address before that). Proven and
-- running the same core, version, content and deciding options, it waits for the session to run, then
-- gets the state of the newest frame whose inputs are confirmed (both sides' inputs known: final) by the
-- chunked transfer of the join, under its own byte budget, and from then on the confirmed inputs of
-- both ports (`feed`), acknowledging what it has (`watched`). Nothing a spectator sends reaches the
-- game: its packets are only ever read here. The same confirmed inputs feed the session's movie
-- (retrolua.netplay_movie) on every side. The spectator's own side is retrolua.netplay_watch.

local guard = require("retrolua.netplay_guard")
local core_options = require("retrolua.netplay_options")

local spectate = {}

spectate.MAX = 16           -- spectators one host feeds
spectate.KEEP = 1200        -- confirmed frames kept for spectators behind the present (then dropped)
spectate.FEED_MAX = 32      -- frames of inputs in one feed packet

local Audience = {}
Audience.__index = Audience

local wire

--- The host's audience: the spectators of `session` (empty at first).
function spectate.audience(session)
  return setmetatable({ session = session, list = {}, by_address = {}, log = {}, log_first = 0, log_end = 0 },
                      Audience)
end

local function ignored(session)
  session.stats.ignored = session.stats.ignored + 1
end

--- Reads a datagram when it is a spectator's (a `watch` hello, or anything from a spectator's address):
--- true when it was, whatever became of it; false leaves it to the session.
function Audience:handle(kind, data, from)
  local T, session = wire.kinds, self.session
  if kind == T.watch then
    self:on_watch(data, from)
    return true
  end
  local viewer = self.by_address[from]
  if not viewer then return false end
  local nonce = string.unpack("<I4", data, wire.header_size + 1)
  if nonce ~= viewer.nonce then ignored(session); return true end
  viewer.last_heard = net.clock()
  if kind == T.need and viewer.blob then
    self:on_need(viewer, data)
  elseif kind == T.ready and viewer.blob then
    viewer.blob, viewer.resends, viewer.acked = nil, nil, viewer.start
    viewer.phase = "watching"
    session.on_message("netplay: " .. viewer.shown .. " watches from frame " .. viewer.start)
  elseif kind == T.watched and viewer.phase == "watching" then
    local count = string.unpack("<I4", data, wire.header_size + 5)
    if count > viewer.acked and count <= self.log_end then viewer.acked = count end
  else
    ignored(session)
  end
  return true
end

function Audience:on_watch(data, from)
  local session = self.session
  local nonce, core, version, sha1, options_hash, _, cookie =
    string.unpack("<I4s1s1s1I4s2s1", data, wire.header_size + 1)
  if from == session.peer then ignored(session); return end  -- a player does not watch its own game
  if not guard.valid(cookie, from, net.clock()) then return session:send_cookie(from, nonce, #data) end
  if self.by_address[from] then  -- a hello again (waiting for a game): it is still there
    self.by_address[from].last_heard = net.clock()
    return
  end
  local mine, reason = session.identity, nil
  if core ~= mine.core or version ~= mine.version then
    reason = "the host runs " .. mine.core .. " " .. mine.version
  elseif sha1 ~= mine.sha1 then
    reason = "the host plays other content (SHA-1 " .. mine.sha1 .. ")"
  elseif options_hash ~= core_options.digest(mine.options) then
    reason = "core options differ from the host's"
  elseif #self.list >= spectate.MAX then
    reason = "the host has " .. spectate.MAX .. " spectators already"
  elseif session.phase == "ended" then
    reason = "the session has ended"
  end
  if reason then return session:refuse(from, reason) end
  local viewer = { address = from, nonce = nonce, phase = "waiting", last_heard = net.clock(),
                   shown = from:gsub("[%c]", "?"), budget = guard.budget(), from_start = session.phase ~= "running" }
  self.list[#self.list + 1], self.by_address[from] = viewer, viewer
  session.on_message("netplay: spectator " .. viewer.shown .. " joins")
end

function Audience:on_need(viewer, data)
  local _, count, position = string.unpack("<I4B", data, wire.header_size + 1)
  if count > wire.need_max or #data < position - 1 + 4 * count then ignored(self.session); return end
  local now = net.clock()
  viewer.resends:measure(now - (viewer.welcomed or now))
  for index = 0, count - 1 do
    local chunk = string.unpack("<I4", data, position + 4 * index)
    if chunk < viewer.chunks and viewer.resends:due(chunk, now) then
      local part = viewer.blob:sub(chunk * wire.chunk + 1, (chunk + 1) * wire.chunk)
      local reply = wire.packet(wire.kinds.chunk, "<I4I4s2", viewer.nonce, chunk, part)
      if not viewer.budget:take(#reply) then return end
      self.session.socket:send(reply, viewer.address)
      viewer.resends:mark(chunk, now)
    end
  end
end

--- Appends the confirmed inputs of `frame` (the next one), for the spectators.
function Audience:add(frame, first_port, second_port)
  if frame ~= self.log_end then return end
  self.log[frame], self.log_end = string.pack("<I2I2", first_port, second_port), frame + 1
end

-- A waiting spectator gets the state of a confirmed frame: the session's first for one there before it
-- began (while the ring holds it), else the present when every input before it is confirmed
-- (rollbacks are done by now), else the newest confirmed one (a state a rollback saved again).
function Audience:offer(viewer)
  local session = self.session
  local frame, state = 0, viewer.from_start and self.log_first == 0 and session:ring_state(0)
  if not state then
    frame = math.min(session.remote_count, session.frame)
    state = frame >= self.log_first and (frame == session.frame and savestate.create() or session:ring_state(frame))
  end
  if not state then return end
  local domain = wire.save_ram_domain()
  local save_ram = domain and memory.read_bytes(0, domain.size, domain.name) or ""
  viewer.blob = string.pack("<I4s4s4", frame, state:bytes(), save_ram)
  viewer.start, viewer.chunks, viewer.resends, viewer.phase = frame, (#viewer.blob + wire.chunk - 1) // wire.chunk,
    guard.resends(), "sending"
end

function Audience:feed(viewer, now)
  local count = math.min(spectate.FEED_MAX, self.log_end - viewer.acked)
  if count <= 0 or now - (viewer.fed or 0) < 0.015 and viewer.fed_end == self.log_end then return end
  local parts = { wire.packet(wire.kinds.feed, "<I4I4B", viewer.nonce, viewer.acked, count) }
  for frame = viewer.acked, viewer.acked + count - 1 do parts[#parts + 1] = self.log[frame] end
  local datagram = table.concat(parts)
  if not viewer.budget:take(#datagram) then return end
  self.session.socket:send(datagram, viewer.address)
  viewer.fed, viewer.fed_end = now, self.log_end
end

function Audience:drop(index, why)
  local viewer = table.remove(self.list, index)
  self.by_address[viewer.address] = nil
  self.session.on_message("netplay: spectator " .. viewer.shown .. " " .. why)
end

--- Each frame: transfers, feeds, and the spectators that went quiet or fell too far behind let go.
function Audience:serve()
  local session, now = self.session, net.clock()
  local oldest = self.log_end
  for index = #self.list, 1, -1 do
    local viewer = self.list[index]
    if viewer.phase == "waiting" and session.phase == "running" then self:offer(viewer) end
    if now - viewer.last_heard > session.timeout then
      self:drop(index, "went quiet")
    elseif viewer.phase == "watching" and viewer.acked < self.log_first then
      self:drop(index, "fell behind")
    else
      if viewer.phase == "sending" and now - (viewer.welcome_at or 0) > 0.25 then
        session.socket:send(wire.packet(wire.kinds.welcome, "<I4I4I4", viewer.nonce, #viewer.blob, viewer.chunks),
                            viewer.address)
        viewer.welcome_at, viewer.welcomed = now, viewer.welcomed or now
      elseif viewer.phase == "watching" then
        self:feed(viewer, now)
        oldest = math.min(oldest, viewer.acked)
      end
      if viewer.start then oldest = math.min(oldest, viewer.acked or viewer.start) end
    end
  end
  local first = math.max(self.log_first, math.min(oldest, self.log_end - spectate.KEEP))
  for frame = self.log_first, first - 1 do self.log[frame] = nil end
  self.log_first = first
end

--- At the session's end: every spectator is told the last frame and fed to it (for a second at most).
function Audience:finish(reason)
  local session, started = self.session, net.clock()
  while net.clock() - started < 1 do
    local behind = false
    for _, viewer in ipairs(self.list) do
      if viewer.phase == "watching" and viewer.acked < self.log_end then
        behind = true
        viewer.fed = nil
        self:feed(viewer, net.clock())
      end
    end
    if not behind then break end
    session.socket:wait(10)
    session:receive_all()
  end
  for _, viewer in ipairs(self.list) do
    local over = wire.packet(wire.kinds.over, "<I4I4s1", viewer.nonce, self.log_end, reason:sub(1, 200))
    for _ = 1, 3 do session.socket:send(over, viewer.address) end
  end
  self.list, self.by_address = {}, {}
end

--- Adds `Session:serve_confirmed()` (each frame: the newly confirmed inputs to the audience and the
--- movie, then the spectators served); `wire_` gives netplay.lua's packet maker, kinds and limits.
function spectate.install(Session, wire_)
  wire = wire_
  function Session:serve_confirmed()
    local confirmed = math.min(self.remote_count, self.local_count)
    if self.stop_after > 0 then confirmed = math.min(confirmed, self.stop_after) end
    local from = self.confirmed_end or 0
    for frame = from, confirmed - 1 do
      local mine, theirs = self.local_in[frame] or 0, self.remote_in[frame] or 0
      local first, second = mine, theirs
      if self.local_port == 2 then first, second = theirs, mine end
      if self.audience then self.audience:add(frame, first, second) end
      if self.recorder then self.recorder:add(frame, first, second, self) end
    end
    if confirmed > from then self.confirmed_end = confirmed end
    if self.audience then self.audience:serve() end
  end
end

--- The wire netplay.lua installed (for retrolua.netplay_watch).
function spectate.wire()
  return wire
end

return spectate
