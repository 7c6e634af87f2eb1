-- Netplay through a relay (`retrolua netplay-relay`), for players behind NAT: both dial out to the relay,
-- which seats them in a room and passes each one's datagrams to the other. This is the players' side: a
-- transport shaped like a `net.udp` socket (send, receive, wait, address, stats, close) that
-- `netplay.new` takes as its `socket`, so the session runs over it unchanged.
--
-- The relay is untrusted. The room's id is a hash of the players' shared secret and the content's SHA-1
-- (net.hmac), so the relay learns neither; every packet between the players carries a MAC under a key
-- derived the same way, its sender's seat, a per-process instance and a counter, so the relay (or anyone
-- who learns the room's id) cannot forge a packet, send one back to its sender, or play one again — it
-- can only drop them. The relay's own replies (cookie, room, full) cannot be signed (it has no key): they
-- are hints whose forgery costs nothing — a cookie makes this side join again (at most 4 times a second),
-- a count changes a message. The wire format is in docs/guides/netplay.md ("Over the internet").

local room = {}

room.MAGIC, room.VERSION = "RLRY", 1
room.KIND = { join = 1, cookie = 2, room = 3, data = 4, full = 5, leave = 6 }
room.JOIN_SIZE = 64               -- a JOIN is padded so that every reply to it is smaller
room.MAC_SIZE = 16
room.DATA_HEADER = "<c4BBBI4I4"   -- magic, version, kind, the sender's seat, its instance, its counter
room.DATA_HEADER_SIZE = 15
local K = room.KIND
local WINDOW = 256                -- counters this far behind the newest are too old to accept
local INSTANCES = 4               -- senders' instances remembered (a player that restarted is a new one)
local REJOIN = { waiting = 0.5, seated = 5 }  -- seconds between JOINs (the relay empties a seat after 30)

--- The room's id (16 bytes, what the relay sees) and the packets' key (32 bytes), from the players'
--- `secret` and the content's `sha1`.
function room.derive(secret, sha1)
  return net.hmac(secret, "retrolua netplay room\n" .. sha1):sub(1, 16),
         net.hmac(secret, "retrolua netplay key\n" .. sha1)
end

--- The first five bytes of a room id in base32, `ABCD-EFGH`: what the players and the relay show.
function room.code(id)
  local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
  local bits = 0
  for index = 1, 5 do bits = (bits << 8) | id:byte(index) end
  local letters = {}
  for index = 0, 7 do
    local value = (bits >> (35 - 5 * index)) & 31
    letters[#letters + 1] = alphabet:sub(value + 1, value + 1)
  end
  return table.concat(letters, "", 1, 4) .. "-" .. table.concat(letters, "", 5, 8)
end

local Transport = {}
Transport.__index = Transport

--- A transport into the room of `secret` and `sha1` on the relay at `relay` (`HOST:PORT`), seated as
--- `role` ("host" or "join"); `socket` (an open `net.udp`, default one bound to `*:0`) and
--- `on_message(text)` are optional. `nil, message` when the socket cannot be opened.
function room.open(options)
  assert(options.role == "host" or options.role == "join", "netplay_room.open: role must be \"host\" or \"join\"")
  assert(type(options.relay) == "string", "netplay_room.open: relay must be HOST:PORT")
  assert(type(options.secret) == "string" and #options.secret > 0, "netplay_room.open: secret must be a string")
  local socket, problem = options.socket
  if not socket then socket, problem = net.udp({ bind = "*:0" }) end
  if not socket then return nil, problem end
  local id, key = room.derive(options.secret, options.sha1 or "")
  -- A socket looks a name up on every send: where every address may be reached, the relay's is looked up
  -- once (a name only granted by --allow-net stays a name, which that grant matches).
  local relay = net.allowed() == "all" and net.resolve(options.relay) or options.relay
  local self = setmetatable({
    socket = socket, relay = relay, id = id, key = key, seat = options.role == "host" and 1 or 2,
    instance = math.random(0, 0xffffffff), counter = 0, windows = {}, window_count = 0,
    cookie = string.rep("\0", 16), members = 0, last_join = -math.huge, last_cookie = -math.huge,
    on_message = options.on_message or function(text) emu.message(text) end,
    counts = { forged = 0, reflected = 0, replayed = 0, malformed = 0 },
  }, Transport)
  self.code = room.code(id)
  self.peer = "room " .. self.code
  self:join()
  return self
end

function Transport:join()
  local body = string.pack("<c4BBBc16c16", room.MAGIC, room.VERSION, K.join, self.seat, self.id, self.cookie)
  local sent, problem = self.socket:send(body .. string.rep("\0", room.JOIN_SIZE - #body), self.relay)
  if not sent and not self.told_unreachable then
    self.told_unreachable = true
    self.on_message("netplay: cannot reach the relay: " .. tostring(problem) .. "; trying again")
  end
  self.last_join = net.clock()
end

-- Joins again while the relay has not seated this side, and now and then after, so the seat stays.
function Transport:keep_seat()
  if self.left then return end
  if net.clock() - self.last_join >= (self.members > 0 and REJOIN.seated or REJOIN.waiting) then self:join() end
end

--- Sends `data` to the room's other player (the address is the session's and means nothing here).
function Transport:send(data, _)
  if self.left then return nil, "left the room" end
  self.counter = self.counter + 1
  local body = string.pack(room.DATA_HEADER, room.MAGIC, room.VERSION, K.data, self.seat, self.instance,
                           self.counter) .. data
  return self.socket:send(body .. net.hmac(self.key, body):sub(1, room.MAC_SIZE), self.relay)
end

--- The next packet from the other player, authenticated, and `peer` as its address; nil when none waits.
function Transport:receive()
  self:keep_seat()
  for _ = 1, 64 do
    local data = self.socket:receive()
    if not data then return nil end
    local payload = self:unwrap(data)
    if payload then return payload, self.peer end
  end
end

function Transport:unwrap(data)
  if #data < 6 or data:sub(1, 4) ~= room.MAGIC or data:byte(5) ~= room.VERSION then
    self.counts.malformed = self.counts.malformed + 1
    return nil
  end
  local kind = data:byte(6)
  if kind == K.data then return self:verify(data) end
  if kind == K.cookie and #data >= 22 then
    self.cookie = data:sub(7, 22)
    local now = net.clock()
    if now - self.last_cookie >= 0.25 and not self.left then self.last_cookie = now; self:join() end
  elseif kind == K.room and #data >= 7 then
    local members = math.min(2, data:byte(7))
    if self.members == 0 and members > 0 then
      self.on_message("netplay: in room " .. self.code .. " at " .. self.relay ..
                      (members < 2 and "; waiting for the other player" or ""))
    end
    self.members = members
  elseif kind == K.full and not self.told_full then
    self.told_full = true
    self.on_message("netplay: room " .. self.code .. " is full (two players are in it); trying again")
  end
end

-- A DATA packet's payload when its MAC, seat and counter hold; nil (counted) otherwise.
function Transport:verify(data)
  local size = room.DATA_HEADER_SIZE + room.MAC_SIZE
  if #data < size then self.counts.malformed = self.counts.malformed + 1; return nil end
  local body, mac = data:sub(1, -room.MAC_SIZE - 1), data:sub(-room.MAC_SIZE)
  if net.hmac(self.key, body):sub(1, room.MAC_SIZE) ~= mac then self.counts.forged = self.counts.forged + 1; return nil end
  local _, _, _, seat, instance, counter = string.unpack(room.DATA_HEADER, body)
  if seat == self.seat then self.counts.reflected = self.counts.reflected + 1; return nil end
  if not self:fresh(instance, counter) then self.counts.replayed = self.counts.replayed + 1; return nil end
  return body:sub(room.DATA_HEADER_SIZE + 1)
end

-- Whether `counter` of the sender's `instance` is new: not seen, and within WINDOW of its newest.
function Transport:fresh(instance, counter)
  local window = self.windows[instance]
  if not window then
    if self.window_count >= INSTANCES then self.windows, self.window_count = {}, 0 end
    window = { top = 0, seen = {}, size = 0 }
    self.windows[instance], self.window_count = window, self.window_count + 1
  end
  if counter + WINDOW <= window.top or window.seen[counter] then return false end
  window.seen[counter], window.size = true, window.size + 1
  if counter > window.top then window.top = counter end
  if window.size > 2 * WINDOW then
    window.size = 0
    for old in pairs(window.seen) do
      if old + WINDOW <= window.top then window.seen[old] = nil else window.size = window.size + 1 end
    end
  end
  return true
end

function Transport:wait(milliseconds)
  self:keep_seat()
  return self.socket:wait(milliseconds)
end

function Transport:address()
  return self.peer
end

--- The socket's counters, and the room's: `forged` (a wrong MAC), `reflected` (this side's own packet
--- sent back), `replayed` (a counter seen before or too old), `malformed`.
function Transport:stats()
  local out = self.socket:stats()
  for key, value in pairs(self.counts) do out[key] = value end
  return out
end

--- Gives the seat back (the socket stays open: a session that ended still reads it).
function Transport:leave()
  if self.left then return end
  self.left = true
  self.socket:send(string.pack("<c4BB", room.MAGIC, room.VERSION, K.leave), self.relay)
end

function Transport:close()
  self:leave()
  self.socket:close()
end

room.Transport = Transport
return room
