-- LuaSocket's UDP objects over net.udp: "udp{unconnected}" (sendto/receivefrom) and "udp{connected}"
-- (setpeername: send/receive with one peer; datagrams from others are dropped, as the system does).
-- A socket is bound when first used, as the system binds it: setsockname's address, else the loopback address
-- for a loopback peer (so bare --allow-net suffices) and net.udp's default for any other.
local net, common = ...

local setmetatable, tonumber, floor, sub = setmetatable, tonumber, math.floor, string.sub
local state, classes = common.state, common.classes

local UNCONNECTED = { ["udp{unconnected}"] = true }
local CONNECTED = { ["udp{connected}"] = true }
local ANY = { ["udp{unconnected}"] = true, ["udp{connected}"] = true }
local LARGEST = 65507  -- the largest UDP payload over IPv4; the system refuses more ("Message too long")
local DATAGRAM = 8192  -- LuaSocket's default receive size

local udp = {}
local methods = {}

function udp.new(family)
  local object = setmetatable({}, classes["udp{unconnected}"])
  local s = { kind = "udp", family = family, options = {} }
  common.new_timeouts(s)
  s.fd = common.new_fd(object)
  state[object] = s
  return object
end

local function loopback(host)
  return host == "localhost" or host == "::1" or (common.ipv4(host) and sub(host, 1, 4) == "127.")
end

-- Opens the host socket (`address` nil: net.udp's default).
local function bind(s, address, port)
  local socket, message = net.udp({ bind = address and common.join(address, port), max_size = LARGEST })
  if not socket then return nil, common.reason(message) end
  s.udp = socket
  return true
end

local function bound(s, toward)
  if s.udp then return true end
  if loopback(toward) then return bind(s, s.family == "inet6" and "::1" or "127.0.0.1", "0") end
  return bind(s, nil)  -- net's own default address, which follows the script's grants
end

local function destination(s, host, port)
  return common.join(common.host(host, s.family), common.number_text(tonumber(port) or port))
end

function methods.setsockname(self, address, port)
  local s = common.self(self, "setsockname", "udp{unconnected}", UNCONNECTED)
  address = common.string(address, 1, "setsockname")
  port = common.string(port, 2, "setsockname")
  if s.closed then return nil, "closed" end
  if s.udp then return nil, "Invalid argument" end
  local ok, message = bind(s, common.host(address, s.family), port)
  if not ok then return nil, message end
  return 1.0
end

function methods.setpeername(self, address, port)
  local s = common.self(self, "setpeername", "udp{any}", ANY)
  address = common.string(address, 1, "setpeername")
  if address == "*" then
    common.optional_string(port, 2, "setpeername", "0")
    s.peer = nil
    setmetatable(self, classes["udp{unconnected}"])
    return 1.0
  end
  port = common.string(port, 2, "setpeername")
  if s.closed then return nil, "closed" end
  local ok, message = bound(s, address)
  if not ok then return nil, message end
  s.peer = destination(s, address, port)
  setmetatable(self, classes["udp{connected}"])
  return 1.0
end

local function send(s, data, to)
  if s.closed then return nil, "closed" end
  if #data > LARGEST then return nil, "Message too long" end
  local sent, message = s.udp:send(data, to)
  if not sent then return nil, common.reason(message) end
  return #data + 0.0
end

function methods.send(self, data)
  local s = common.self(self, "send", "udp{connected}", CONNECTED)
  return send(s, common.string(data, 1, "send"), s.peer)
end

function methods.sendto(self, data, address, port)
  local s = common.self(self, "sendto", "udp{unconnected}", UNCONNECTED)
  data = common.string(data, 1, "sendto")
  address = common.string(address, 2, "sendto")
  port = common.string(port, 3, "sendto")
  if s.closed then return nil, "closed" end
  local ok, message = bound(s, address)
  if not ok then return nil, message end
  return send(s, data, destination(s, address, port))
end

-- The next datagram (from the peer, when connected) cut to `size`, and its sender; nil, "timeout" after the
-- timeout. An unbound or closed socket gives "" at once, as LuaSocket's does.
local function next_datagram(s, size)
  if s.closed or not s.udp then return "" end
  local deadline = common.deadline(s)
  while true do
    local data, from = s.udp:receive()
    if data then
      if s.peer == nil or from == s.peer then return sub(data, 1, size), from end
    else
      local ms = common.wait_ms(deadline)
      if ms == 0 then return nil, "timeout" end
      s.udp:wait(ms)
    end
  end
end

local function size_of(size, method)
  size = floor(common.number(size, 1, method, DATAGRAM))
  return size > 0 and size or 0
end

function methods.receive(self, size)
  local s = common.self(self, "receive", "udp{any}", ANY)
  local data, why = next_datagram(s, size_of(size, "receive"))
  if data == nil then return nil, why end
  return data
end

function methods.receivefrom(self, size)
  local s = common.self(self, "receivefrom", "udp{unconnected}", UNCONNECTED)
  local data, from = next_datagram(s, size_of(size, "receivefrom"))
  if data == nil or from == nil then return data, from end
  local host, port = common.split(from)
  return data, host, tonumber(port)
end

function methods.getsockname(self)
  local s = common.self(self, "getsockname", "udp{any}", ANY)
  if s.closed or not s.udp then return nil, "Bad file descriptor" end
  return common.split(s.udp:address())
end

function methods.getpeername(self)
  local s = common.self(self, "getpeername", "udp{connected}", CONNECTED)
  if s.closed then return nil, "Bad file descriptor" end
  local host, port, family = common.split(s.peer)
  return host, tonumber(port), family
end

function methods.close(self)
  local s = common.self(self, "close", "udp{any}", ANY)
  if not s.closed then
    s.closed = true
    if s.udp then s.udp:close() end
    common.forget_fd(s)
  end
  return 1.0
end

function methods.dirty(self)
  common.self(self, "dirty", "udp{any}", ANY)
  return false
end

local SET = {
  dontroute = false, broadcast = false, reuseaddr = false, reuseport = false, ["ip-multicast-if"] = "0.0.0.0",
  ["ip-multicast-ttl"] = 1, ["ip-multicast-loop"] = true, ["ip-add-membership"] = false,
  ["ip-drop-membership"] = false, ["ipv6-unicast-hops"] = 64, ["ipv6-multicast-hops"] = 1,
  ["ipv6-multicast-loop"] = true, ["ipv6-add-membership"] = false, ["ipv6-drop-membership"] = false,
  ["ipv6-v6only"] = false, ["recv-buffer-size"] = 0, ["send-buffer-size"] = 0,
}
local GET = {
  dontroute = true, broadcast = true, reuseaddr = true, reuseport = true, ["ip-multicast-if"] = true,
  ["ip-multicast-ttl"] = true, ["ip-multicast-loop"] = true, ["ipv6-unicast-hops"] = true,
  ["ipv6-multicast-hops"] = true, ["ipv6-multicast-loop"] = true, ["ipv6-v6only"] = true,
  ["recv-buffer-size"] = true, ["send-buffer-size"] = true,
}

function methods.setoption(self, name, value)
  local s = common.self(self, "setoption", "udp{any}", ANY)
  return common.setoption(s, SET, name, value, not s.closed and s.udp)
end

function methods.getoption(self, name)
  return common.getoption(common.self(self, "getoption", "udp{any}", ANY), SET, GET, name)
end

common.define_shared(methods, "udp{any}", ANY)
common.define({ "udp{unconnected}", "udp{connected}" }, methods)
return udp
