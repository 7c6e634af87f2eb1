-- A spectator's side of netplay (`--netplay join ADDRESS --spectate`; the host's side is
-- retrolua.netplay_spectate): says hello as a spectator, echoes the host's cookie, takes the state of a
-- confirmed frame by the chunked transfer, then plays the confirmed inputs of both ports as they come,
-- waiting when it has none. It sends only its hello, its requests for chunks and what it has received:
-- nothing of it reaches the game. Same methods as a player's session (frame_start, frame_end, finish,
-- status), so lua/defaults/netplay.lua drives either.

local netplay = require("retrolua.netplay")
local spectate = require("retrolua.netplay_spectate")

local watch = {}

local Spectator = {}
Spectator.__index = Spectator

--- A spectator of the host at `options.address`; `stop_after`, `timeout`, `connect_timeout`, `on_message`,
--- `on_end`, `socket` as for `netplay.new`.
function watch.new(options)
  local self = setmetatable({}, Spectator)
  for key, value in pairs(netplay.defaults) do self[key] = options[key] == nil and value or options[key] end
  self.mode, self.address, self.spectating = "spectate", options.address, true
  self.on_message = options.on_message or function(text) emu.message(text) end
  self.on_end = options.on_end or function() end
  local socket, problem = options.socket
  if not socket then socket, problem = net.udp({ bind = "*:0" }) end
  if not socket then error("netplay: " .. problem, 2) end
  self.socket, self.peer, self.phase = socket, self.address, "hello"
  self.nonce = math.random(1, 0xfffffffe)
  self.identity = netplay.identity()
  self.stats = { ignored = 0, ping_ms = 0, rollbacks = 0, rollback_frames = 0, stall_frames = 0 }
  self.inputs, self.count, self.frame, self.delay, self.prediction = {}, 0, 0, 0, 0
  self.local_port = 0
  return self
end

local function kinds() return spectate.wire().kinds end

function Spectator:send(data)
  self.socket:send(data, self.address)
end

function Spectator:hello()
  local mine, wire = self.identity, spectate.wire()
  self:send(wire.packet(kinds().watch, "<I4s1s1s1I4s2s1", self.nonce, mine.core, mine.version, mine.sha1,
                        require("retrolua.netplay_options").digest(mine.options), "", self.cookie or ""))
  self.hello_sent = net.clock()
end

function Spectator:finish(reason, failed)
  if self.phase == "ended" then return end
  self.phase, self.ended_reason, self.failed = "ended", reason, failed or false
  self.on_message("netplay: " .. reason)
  self.on_end(reason, failed)
end

function Spectator:receive_all()
  for _ = 1, 256 do
    local data, from = self.socket:receive()
    if not data then return end
    local ok, problem = pcall(self.handle, self, data, from)
    if not ok then self.stats.ignored, self.last_problem = self.stats.ignored + 1, tostring(problem) end
  end
end

function Spectator:handle(data, from)
  local wire, T = spectate.wire(), kinds()
  local kind = from == self.address and wire.kind_of(data)
  if not kind then self.stats.ignored = self.stats.ignored + 1; return end
  local nonce = string.unpack("<I4", data, wire.header_size + 1)
  if kind == T.refuse and self.phase == "hello" then
    local _, reason = string.unpack("<I4s2", data, wire.header_size + 1)
    return self:finish("the host refused: " .. reason:gsub("[%c]", "?"), true)
  end
  if nonce ~= self.nonce then self.stats.ignored = self.stats.ignored + 1; return end
  self.last_heard = net.clock()
  if kind == T.cookie and self.phase == "hello" then
    self.cookie = select(2, string.unpack("<I4c16", data, wire.header_size + 1))
    self:hello()
  elseif kind == T.welcome and self.phase == "hello" then
    local _, size, chunks = string.unpack("<I4I4I4", data, wire.header_size + 1)
    if size > wire.state_max or chunks ~= (size + wire.chunk - 1) // wire.chunk or chunks == 0 then
      return self:finish("the host sent a game of " .. size .. " bytes", true)
    end
    self.phase, self.size, self.chunks, self.parts, self.missing = "receiving", size, chunks, {}, chunks
    self:receive_game()
  elseif kind == T.chunk and self.phase == "receiving" then
    local _, index, part = string.unpack("<I4I4s2", data, wire.header_size + 1)
    local expected = index == self.chunks - 1 and self.size - index * wire.chunk or wire.chunk
    if index >= self.chunks or #part ~= expected then self.stats.ignored = self.stats.ignored + 1; return end
    if not self.parts[index] then self.parts[index], self.missing = part, self.missing - 1 end
  elseif kind == T.feed and self.phase == "running" then
    self:on_feed(data)
  elseif kind == T.over then
    local _, last, reason = string.unpack("<I4I4s1", data, wire.header_size + 1)
    self.over_at, self.over_reason = last, reason:gsub("[%c]", "?")
  else
    self.stats.ignored = self.stats.ignored + 1
  end
end

function Spectator:on_feed(data)
  local wire = spectate.wire()
  local _, first, count, position = string.unpack("<I4I4B", data, wire.header_size + 1)
  -- No further ahead than the host keeps for its spectators: a host cannot fill this side's memory.
  if count > spectate.FEED_MAX or #data < position - 1 + 4 * count or first > self.count
     or first + count > self.frame + spectate.KEEP + spectate.FEED_MAX then
    self.stats.ignored = self.stats.ignored + 1
    return
  end
  for index = math.max(0, self.count - first), count - 1 do
    local port1, port2 = string.unpack("<I2I2", data, position + 4 * index)
    self.inputs[first + index] = { port1, port2 }
  end
  if first + count > self.count then self.count = first + count end
end

-- Asks for the chunks it lacks until it has the state, then loads it and plays from its frame.
function Spectator:receive_game()
  local wire, T = spectate.wire(), kinds()
  local last_ask, last_progress, before = 0, net.clock(), self.missing
  while self.phase == "receiving" and self.missing > 0 do
    local now = net.clock()
    if self.missing ~= before then before, last_progress = self.missing, now end
    if now - last_progress > self.timeout then return self:finish("the host stopped sending the game", true) end
    if now - last_ask > 0.03 then
      local wanted, count = wire.missing_chunks(self.parts, self.chunks)
      self:send(wire.packet(T.need, "<I4B", self.nonce, count) .. wanted)
      last_ask = now
    end
    self.socket:wait(5)
    self:receive_all()
  end
  if self.phase ~= "receiving" then return end
  local parts = {}
  for index = 0, self.chunks - 1 do parts[index + 1] = self.parts[index] end
  self.parts = nil
  local ok, frame, state_bytes, save_ram = pcall(string.unpack, "<I4s4s4", table.concat(parts))
  if not ok then return self:finish("the host's game is malformed", true) end
  local domain = wire.save_ram_domain()
  if domain and #save_ram == domain.size then memory.write_bytes(0, save_ram, domain.name) end
  local state, problem = savestate.from_bytes(state_bytes)
  local loaded
  if state then loaded, problem = state:load() end
  if not loaded then return self:finish("cannot load the host's game: " .. tostring(problem), true) end
  self:send(wire.packet(T.ready, "<I4", self.nonce))
  self.phase, self.frame, self.count, self.start = "running", frame, frame, frame
  if self.recorder then self.recorder:start(frame, state) end
  self.on_message(string.format("netplay: watching %s from frame %d", self.address, frame))
  self:wait_for_inputs()
end

function Spectator:acknowledge()
  self:send(spectate.wire().packet(kinds().watched, "<I4I4", self.nonce, self.count))
  self.last_sent = net.clock()
end

--- Call at `frame_start`: both ports take the frame's confirmed inputs.
function Spectator:frame_start()
  if self.phase ~= "running" then return end
  local input = self.inputs[self.frame]
  if not input then return end  -- (frame_end waited for it; only a session driven out of order lacks it)
  for port = 1, 2 do
    joypad.set(port, input[port])
    joypad.set_analog(port, "left", 0, 0)
    joypad.set_analog(port, "right", 0, 0)
  end
end

-- Whether the spectator is done: at `stop_after`, or where the host's session ended.
function Spectator:done()
  if self.stop_after > 0 and self.frame >= self.stop_after then
    self:finish("finished " .. self.stop_after .. " frames")
  elseif self.over_at and self.frame >= self.over_at then
    self:finish("the host's session ended (" .. self.over_reason .. ")")
  end
  return self.phase ~= "running"
end

--- Call at `frame_end`: receives, then waits until the next frame's inputs are here.
function Spectator:frame_end()
  if self.phase == "hello" then
    local now = net.clock()
    self.hello_started = self.hello_started or now
    -- Once the host has answered, a spectator waits for the game as long as the host takes.
    if not self.cookie and now - self.hello_started > self.connect_timeout then
      return self:finish("no answer from " .. self.address .. " after " .. self.connect_timeout .. " s", true)
    end
    if now - (self.hello_sent or 0) > 0.5 then self:hello() end
  end
  if self.phase ~= "running" then
    self.socket:wait(emu.info().window and 0 or 16)
    self:receive_all()
    return
  end
  self.frame = self.frame + 1
  self.inputs[self.frame - 2] = nil
  if self.recorder then self.recorder:add(self.frame - 1, self.inputs[self.frame - 1][1],
                                          self.inputs[self.frame - 1][2]) end
  self:receive_all()
  self:wait_for_inputs()
end

-- Waits (acknowledging what it has) until the inputs of the frame about to run are here.
function Spectator:wait_for_inputs()
  if self:done() then return end
  local last_heard = self.last_heard or net.clock()
  while self.phase == "running" and self.frame >= self.count do
    if net.clock() - last_heard > self.timeout then
      return self:finish(string.format("no packet from the host for %d s", self.timeout), true)
    end
    if net.clock() - (self.last_sent or 0) > 0.02 then self:acknowledge() end
    self.socket:wait(5)
    self:receive_all()
    last_heard = self.last_heard or last_heard
    if self:done() then return end
  end
  if net.clock() - (self.last_sent or 0) > 0.05 then self:acknowledge() end
end

--- What the OSD shows (as a player's session's status).
function Spectator:status()
  return { phase = self.phase, ping_ms = 0, delay = 0, frame = self.frame, peer = self.address, stats = self.stats,
           spectating = true, behind = self.count - self.frame }
end

return watch
