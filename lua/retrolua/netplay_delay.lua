-- No stalls (retrolua.netplay, `adaptive = true`): the input delay follows the measured round trip and
-- jitter, and prediction follows what this core's rollbacks cost. An input sent `delay` frames early
-- must arrive within `delay + prediction` frames, so the two together cover the one-way time plus twice
-- the jitter plus half a frame (the next packet when one is lost); prediction takes as much of that as
-- half a frame's time allows replaying, delay the rest (never below the configured `delay`). The host
-- decides the delay and announces the frame it starts at; the joiner takes it at that frame (a delay only
-- shifts when a side's own inputs are read, so a late change is harmless). Balancing a frame advantage
-- in a window slows the frontend by 2 % with hysteresis and a short note, never a standing sign.

local delay = {}

local PREDICTION_MIN, PREDICTION_MAX = 8, 16  -- the budget raises prediction from the old default, never lowers it
local DELAY_MAX = 12                           -- an adaptive delay's ceiling (a configured one: 8)
local RING = PREDICTION_MAX + 2

--- Adds the delay and prediction adaptation to `Session`; `wire` gives netplay.lua's packet maker.
function delay.install(Session, wire)
  local packet, T = wire.packet, wire.kinds

  --- Called by `netplay.new`: an adaptive session's ring holds the deepest rollback it may take.
  function Session:setup_adaptive()
    if not self.adaptive then return end
    self.delay_floor, self.ring_size = self.delay, math.max(self.ring_size, RING)
    self.prediction = math.max(PREDICTION_MIN, math.min(PREDICTION_MAX, self.prediction))
    self.stats.delay_changes, self.stats.jitter_ms = 0, 0
  end

  --- Called as the session begins, before the first inputs: each side starts at the delay the round trip
  --- of the handshake asks for (the host's: the game's transfer; the joiner's: its hello to the cookie),
  --- jitter guessed a tenth of it; the host announces its own from frame 0, which the joiner then takes.
  function Session:initial_delay()
    local round_trip = self.mode == "host" and self.resends and self.resends.round_trip or self.handshake_rtt
    if not self.adaptive or self.fixed_delay or not round_trip then return end
    self.fps = emu.info().fps or 60
    self.stats.ping_ms, self.stats.jitter_ms = round_trip * 1000, round_trip * 100
    self.delay = math.max(self.delay_floor, math.min(DELAY_MAX, self:frames_needed() - self.prediction))
    if self.mode == "host" then self.delay_from, self.announce_until = 0, net.clock() + 1 end
  end

  -- Each round trip measured: the jitter is the mean absolute deviation from the smoothed round trip.
  function Session:sample_ping(ping)
    local deviation = math.abs(ping - self.stats.ping_ms)
    local samples = (self.ping_samples or 0) + 1
    self.ping_samples = samples
    self.stats.jitter_ms = samples == 1 and deviation or self.stats.jitter_ms * 0.95 + deviation * 0.05
  end

  -- What a rollback costs here, per replayed frame (a state load included), smoothed.
  function Session:sample_rollback(seconds, frames)
    local cost = seconds * 1000 / frames
    self.replay_ms = self.replay_ms and self.replay_ms * 0.9 + cost * 0.1 or cost
  end

  -- Frames an input may take to arrive: one way, the jitter (1.5 × the round trip's mean deviation: a
  -- direction's worst case for uniform jitter), half a frame for a lost datagram's successor, rounded
  -- up, plus two (the frame it is read in, and the sides' frame advantage the balancing leaves).
  function Session:frames_needed()
    local frame_ms = 1000 / self.fps
    local one_way = self.stats.ping_ms / 2 + 1.5 * self.stats.jitter_ms + frame_ms / 2
    return math.ceil(one_way / frame_ms) + 2
  end

  -- Every second: prediction from the rollback cost; on the host, the delay from the network (set once
  -- outright after a second of pings, then up at once and down a frame at a time).
  function Session:adapt()
    if not self.adaptive or self.frame % 60 ~= 30 or (self.ping_samples or 0) < 10 then return end
    if self.replay_ms then
      -- Moved only by two frames or more: a delay worked out from it should not wobble with it.
      local budget = math.max(PREDICTION_MIN, math.min(PREDICTION_MAX, math.floor(500 / self.fps / self.replay_ms)))
      if math.abs(budget - self.prediction) >= 2 then self.prediction = budget end
    end
    if self.mode ~= "host" or self.fixed_delay then return end
    local wanted = math.max(self.delay_floor, math.min(DELAY_MAX, self:frames_needed() - self.prediction))
    local current = self.next_delay and self.next_delay.delay or self.delay
    -- Up at once; down (a frame the other side must predict further) only with two to spare and 10 s
    -- after the last change, so a jittery link does not flip it.
    local now = net.clock()
    if not self.delay_settled and self.ping_samples >= 60 then
      -- The first second of pings replaces the handshake's guess, either way.
      self.delay_settled = true
      if wanted ~= current then self.next_delay = { from = self.frame + self:frames_needed() + 2, delay = wanted } end
      self.delay_changed, self.announce_until = now, now + 1
    elseif wanted > current or (wanted < current - 1 and now - (self.delay_changed or 0) > 10) then
      if wanted < current then wanted = current - 1 end
      self.delay_changed = now
      self.next_delay = { from = self.frame + self:frames_needed() + 2, delay = wanted }
      self.announce_until = net.clock() + 1
    end
  end

  -- The host's delay announcement: with every input packet for a second after a change, then every 2 s.
  function Session:announce_delay()
    if self.mode ~= "host" or not self.adaptive then return end
    local now = net.clock()
    if (self.announce_until or 0) < now and now - (self.announced or 0) < 2 then return end
    self.announced = now
    local next = self.next_delay
    local from, value = next and next.from or self.delay_from or 0, next and next.delay or self.delay
    self:send(packet(T.delay, "<I4I4B", self.nonce, from, value))
  end

  function Session:on_delay(data)
    local _, from, value = string.unpack("<I4I4B", data, wire.header_size + 1)
    if value > DELAY_MAX or from > self.frame + wire.future then self.stats.ignored = self.stats.ignored + 1; return end
    if from < (self.delay_from or 0) or (from == self.delay_from and value == self.delay) then return end
    if self.next_delay and self.next_delay.from == from and self.next_delay.delay == value then return end
    self.next_delay = { from = from, delay = value }
  end

  --- At frame_start: a change due now takes effect; a longer delay repeats the last input into the frames
  --- it skips, a shorter one reads no input until the present catches up.
  function Session:apply_delay()
    local next = self.next_delay
    if not next or self.frame < next.from then return end
    self.next_delay = nil
    if next.delay == self.delay then return end
    self.on_message(string.format("netplay: input delay %d → %d (ping %d ms ± %d, prediction %d)", self.delay,
                                  next.delay, math.floor(self.stats.ping_ms + 0.5),
                                  math.floor(self.stats.jitter_ms + 0.5), self.prediction))
    self.delay, self.delay_from = next.delay, next.from
    self.stats.delay_changes = (self.stats.delay_changes or 0) + 1
    while self.local_count < self.frame + self.delay do
      self.local_in[self.local_count] = self.local_in[self.local_count - 1] or 0
      self.local_count = self.local_count + 1
    end
  end

  --- In a window: 2 % slower while this side is more than a frame and a half ahead, back below half a
  --- frame; `netplay.balancing` tells the OSD to show no speed sign for it, and a note says so once.
  function Session:balance_window(module)
    local slow = self.slowed and self.balance > 0.5 or (not self.slowed and self.balance > 1.5)
    if slow == (self.slowed or false) then return end
    self.slowed, module.balancing = slow, slow
    emu.speed(slow and 0.98 or 1)
    local now = net.clock()
    if slow and now - (self.balance_noted or -60) > 60 then
      self.balance_noted = now
      self.on_message("netplay: evening out the frame advantage (2 % slower for a moment)")
    end
  end
end

return delay
