-- Desyncs heal (retrolua.netplay): each side's check carries the hash of every memory domain beside the
-- digest, so a mismatch names what diverged (RAM, VRAM, …); the host then sends the joiner its state of
-- the newest frame whose inputs it has from both sides, through the chunked transfer of the join, and the
-- joiner loads it and replays its own frames since on the inputs it has, so both play on from the same
-- game. Checks carry a heal count (`epoch`) so one taken before a heal never compares with one after. A
-- desync that comes back at the first check after a heal (a side that keeps writing memory, a core that
-- does not replay), or a state that does not arrive, ends the session as failed on both sides.

local sync = require("retrolua.sync_state")
local guard = require("retrolua.netplay_guard")

local heal = {}

local DOMAINS_MAX = 32  -- domain hashes one check carries

--- Adds the check exchange and healing to `Session`; `wire` gives netplay.lua's packet maker and limits.
function heal.install(Session, wire)
  local packet, T, CHUNK, STATE_MAX, HISTORY = wire.packet, wire.kinds, wire.chunk, wire.state_max, wire.history

  -- The check part of an input packet: frame, digest, heal count, and each domain's hash (4 bytes).
  function Session:check_payload()
    local frame = self.last_local_check
    if not frame then return "" end
    local hashes = self.local_domains and self.local_domains[frame] or {}
    local names = next(hashes) and sync.domain_names() or {}
    local parts = {}
    for index, name in ipairs(names) do
      if index > DOMAINS_MAX then break end
      parts[index] = string.pack("<I4", tonumber((hashes[name] or "0"):sub(1, 8), 16) or 0)
    end
    return string.pack("<I4c40BB", frame, self.local_hash[frame], (self.epoch or 0) % 256, #parts)
      .. table.concat(parts)
  end

  -- Reads the peer's check at `position` of an input packet (absent, or of another heal count: ignored).
  function Session:read_check(data, position, horizon)
    if #data < position + 43 then return end
    local frame, hash, next = string.unpack("<I4c40", data, position)
    local epoch, domains = 0, nil
    if #data >= next + 1 then
      local count
      epoch, count, next = string.unpack("BB", data, next)
      if count <= DOMAINS_MAX and #data >= next - 1 + 4 * count then
        domains = {}
        for index = 1, count do domains[index] = string.unpack("<I4", data, next + 4 * (index - 1)) end
      end
    end
    if epoch ~= (self.epoch or 0) % 256 then return end
    if frame % self.check_interval == 0 and frame <= horizon and not self.remote_hash[frame] then
      self.remote_hash[frame] = hash
      self.remote_domains = self.remote_domains or {}
      self.remote_domains[frame] = domains
      self:compare(frame)
    end
  end

  -- What diverged at `frame`: the memory domains whose hashes differ, or what else it was.
  function Session:diverged(frame)
    local mine, theirs = (self.local_domains or {})[frame], (self.remote_domains or {})[frame]
    local names = sync.domain_names()
    if #names == 0 then return "the savestate (the core exposes no memory)" end
    if not (mine and theirs) then return "memory" end
    local differing = {}
    for index, name in ipairs(names) do
      local here = tonumber((mine[name] or "0"):sub(1, 8), 16)
      if index <= DOMAINS_MAX and here ~= theirs[index] then differing[#differing + 1] = name end
    end
    if #differing == 0 then return "memory the domains' short hashes do not tell apart" end
    return table.concat(differing, ", ")
  end

  function Session:compare(frame)
    local here, there = self.local_hash[frame], self.remote_hash[frame]
    if not here or not there then return end
    self.stats.checks = self.stats.checks + 1
    if here == there then
      if self.heal_frame and frame > self.heal_frame then self.heal_frame = nil end  -- the heal held
      return
    end
    if self.heal_due or self.healing or self.awaiting_heal or self.pending_heal then return end
    local what = self:diverged(frame)
    local other = self.mode == "host" and "joiner" or "host"
    self.desync = self.desync or { frame = frame, here = here, there = there, domains = what }
    if self.heal_frame then
      return self:give_up(string.format("desync again at frame %d (%s) at the first check after healing at frame "
                                        .. "%d: it could not be healed", frame, what, self.heal_frame))
    end
    self.on_message(string.format("netplay: desync at frame %d in %s (here %s, %s %s); %s", frame, what,
                                  here:sub(1, 12), other, there:sub(1, 12), self.mode == "host"
                                    and "sending the joiner this side's state" or "waiting for the host's state"))
    if self.mode == "host" then self.heal_due = frame else self.awaiting_heal = true end
  end

  -- Ends the session failed on both sides (the bye says so).
  function Session:give_up(reason)
    self.unhealed = true
    self:finish(reason, true)
  end

  -- MARK: the host's side

  --- Sends the joiner the state of the newest frame both sides' inputs decide, and waits until it has it.
  function Session:heal()
    local desync_frame, target = self.heal_due, math.min(self.frame, self.remote_count)
    self.heal_due = nil
    -- The present is kept only while a rollback may need it: taken here when it was not.
    local state = self:ring_state(target) or (target == self.frame and self:save_ring(target))
    if not state then return self:give_up("the desync at frame " .. desync_frame .. " could not be healed "
                                          .. "(the state of frame " .. target .. " is gone)") end
    local started = net.clock()
    self.epoch = (self.epoch or 0) + 1
    self.blob = state:bytes()
    self.chunks, self.welcomed = (#self.blob + CHUNK - 1) // CHUNK, nil
    self.budget, self.resends = guard.budget(), guard.resends()
    self.healing, self.remote_hash, self.remote_domains = target, {}, {}
    local last_offer = 0
    while self.healing and self.phase == "running" do
      local now = net.clock()
      if now - last_offer > 0.25 then
        self:send(packet(T.heal, "<I4BI4I4I4", self.nonce, self.epoch % 256, target, #self.blob, self.chunks))
        self.welcomed, last_offer = self.welcomed or now, now
      end
      if now - math.max(self.last_heard, started) > self.timeout then
        self.healing = nil
        return self:give_up(string.format("the desync at frame %d could not be healed (the joiner did not take "
                                          .. "the state in %d s)", desync_frame, self.timeout))
      end
      self.socket:wait(5)
      self:receive_all()
    end
    local bytes = #self.blob
    self.blob, self.welcomed, self.resends = nil, nil, nil
    if self.phase ~= "running" then return end
    self:healed(desync_frame, target, bytes, net.clock() - started)
    self.on_message(string.format("netplay: healed the desync at frame %d: the joiner took this side's state "
                                  .. "of frame %d (%d bytes, %.0f ms)", desync_frame, target, bytes,
                                  self.stats.heal_ms))
  end

  function Session:on_healed(data)
    local _, epoch = string.unpack("<I4B", data, wire.header_size + 1)
    if epoch == self.epoch % 256 then self.healing = nil end
  end

  -- MARK: the joiner's side

  function Session:on_heal(data)
    local _, epoch, target, size, chunks = string.unpack("<I4BI4I4I4", data, wire.header_size + 1)
    local epoch_now = (self.epoch or 0) % 256
    if epoch == self.received_epoch then  -- our answer was lost: again
      return self:send(packet(T.healed, "<I4B", self.nonce, epoch))
    end
    if epoch ~= (epoch_now + 1) % 256 or self.parts then self.stats.ignored = self.stats.ignored + 1; return end
    if size > STATE_MAX or size == 0 or chunks ~= (size + CHUNK - 1) // CHUNK or target + HISTORY // 2 < self.frame
       or target > self.frame + wire.future then
      return self:give_up(string.format("the host's state to heal a desync is out of bounds (frame %d, %d bytes)",
                                        target, size))
    end
    self:receive_heal(epoch, target, size, chunks)
  end

  -- Asks for the chunks until the state is whole, like the join's transfer; then it waits for its frame.
  function Session:receive_heal(epoch, target, size, chunks)
    local started = net.clock()
    self.size, self.chunks, self.parts, self.missing = size, chunks, {}, chunks
    local last_ask, before, last_progress = 0, chunks, started
    while self.phase == "running" and self.missing > 0 do
      local now = net.clock()
      if self.missing ~= before then before, last_progress = self.missing, now end
      if now - last_progress > self.timeout or now - started > 2 * self.connect_timeout then
        self.parts = nil
        return self:give_up("the desync could not be healed (the host's state stopped arriving)")
      end
      if now - last_ask > 0.03 then
        local wanted, count = wire.missing_chunks(self.parts, chunks)
        self:send(packet(T.need, "<I4B", self.nonce, count) .. wanted)
        last_ask = now
      end
      self.socket:wait(5)
      self:receive_all()
    end
    if self.phase ~= "running" then self.parts = nil; return end
    local parts = {}
    for index = 0, chunks - 1 do parts[index + 1] = self.parts[index] end
    self.parts = nil
    local state, problem = savestate.from_bytes(table.concat(parts))
    if not state then return self:give_up("the desync could not be healed: " .. tostring(problem)) end
    self.received_epoch = epoch
    self:send(packet(T.healed, "<I4B", self.nonce, epoch))
    self.pending_heal = { epoch = epoch, frame = target, state = state, bytes = size, started = started }
  end

  --- Called first in a rollback: once the present reaches the healed frame, its state goes in the ring
  --- and the frames since are replayed from it (or, at that very frame, loaded).
  function Session:apply_heal()
    local pending = self.pending_heal
    if not pending or self.frame < pending.frame then return end
    self.pending_heal, self.awaiting_heal = nil, nil
    local target = pending.frame
    local slot = target % self.ring_size
    self.ring[slot], self.ring_frame[slot] = pending.state, target
    if target == self.frame then
      pending.state:load({ quiet = true })
      self:save_ring(target)
      if self.first_wrong and self.first_wrong < target then self.first_wrong = nil end
    else
      self.first_wrong = target  -- the states before it are the old game; those after are replayed
    end
    self.epoch = pending.epoch
    self.local_hash, self.local_domains, self.remote_hash, self.remote_domains = {}, {}, {}, {}
    self.last_local_check = nil
    self.next_check = (target // self.check_interval + 1) * self.check_interval
    local desync_frame = self.desync and self.desync.frame or target
    self:healed(desync_frame, target, pending.bytes, net.clock() - pending.started)
    self.on_message(string.format("netplay: healed the desync at frame %d from the host's state of frame %d "
                                  .. "(%d bytes, %.0f ms)", desync_frame, target, pending.bytes, self.stats.heal_ms))
  end

  function Session:healed(desync_frame, target, bytes, seconds)
    local stats = self.stats
    stats.heals = (stats.heals or 0) + 1
    stats.heal_ms, stats.heal_bytes = seconds * 1000, bytes
    self.heal_frame, self.last_heal = target, { desync = desync_frame, frame = target, at = net.clock() }
  end
end

return heal
