-- Netplay's defence against being used as a reflector: a UDP source address can be forged, so a host
-- that answered a forged hello with its game would send megabytes to a victim for a few bytes.
--   * A stateless cookie (as DTLS and QUIC have): the host answers a hello without one, or with a stale
--     one, only with a cookie — a keyed hash (net.cookie) of the sender's address and a coarse epoch.
--     A joiner that echoes it has received at its address; nothing is kept for senders until then.
--   * Before that proof, no reply is larger than the datagram it answers (refusals are cut to fit).
--   * Once proven, the game's chunks go out under a per-peer token bucket of bytes, and each chunk at
--     most once per round trip however often it is asked for.

local guard = {}

guard.COOKIE_SIZE = 16
guard.EPOCH = 30                 -- seconds; a cookie is good for its epoch and the next
guard.RATE = 4 << 20             -- bytes a second to one peer during the transfer
guard.BURST = 128 << 10          -- bytes the bucket holds

--- The cookie of `address` at time `now` (net.clock()).
function guard.cookie(address, now)
  return net.cookie(address .. "\n" .. math.floor(now / guard.EPOCH))
end

--- Whether `cookie` is one this process gave `address` in this epoch or the last.
function guard.valid(cookie, address, now)
  if #cookie ~= guard.COOKIE_SIZE then return false end
  return cookie == guard.cookie(address, now) or cookie == guard.cookie(address, now - guard.EPOCH)
end

--- `reply` when it is no larger than `received` bytes, else nil: what may go to an unproven address.
function guard.fits(reply, received)
  if #reply <= received then return reply end
end

local Budget = {}
Budget.__index = Budget

--- A token bucket of bytes: `rate` a second, at most `burst` saved up (full at first).
function guard.budget(rate, burst)
  return setmetatable({ rate = rate or guard.RATE, burst = burst or guard.BURST, tokens = burst or guard.BURST,
                        at = net.clock(), spent = 0 }, Budget)
end

--- Takes `bytes` from the bucket: false (and nothing taken) when it holds too few now.
function Budget:take(bytes)
  local now = net.clock()
  self.tokens = math.min(self.burst, self.tokens + (now - self.at) * self.rate)
  self.at = now
  if self.tokens < bytes then return false end
  self.tokens, self.spent = self.tokens - bytes, self.spent + bytes
  return true
end

local Resends = {}
Resends.__index = Resends

--- When each chunk last went out, so a chunk asked for again within a round trip is not sent again.
function guard.resends()
  return setmetatable({ sent = {}, round_trip = nil }, Resends)
end

--- Learns the round trip (from the first welcome to the first request), kept within 10 ms…1 s.
function Resends:measure(seconds)
  if not self.round_trip then self.round_trip = math.max(0.01, math.min(1, seconds)) end
end

--- Whether `chunk` may go out now (not sent within a round trip).
function Resends:due(chunk, now)
  local last = self.sent[chunk]
  return not last or now - last >= (self.round_trip or 0.25)
end

function Resends:mark(chunk, now)
  self.sent[chunk] = now
end

return guard
