-- LuaSocket's API, run twice against the same loopback peer (Tests/python/test_luasocket.py): under stock
-- lua5.4 with Debian's LuaSocket and under Retrolua with --allow-net. The two outputs must be identical, so
-- nothing printed depends on ports, addresses of tables or timing: waits that end with data have long
-- timeouts, and a "timeout" result is asked for only where nothing can arrive.
-- The peer's TCP port is $LUASOCKET_PEER, its UDP echo port $LUASOCKET_ECHO. Every line starts with "ls ".
local socket = require("socket")

-- A value as text with its Lua type: 1.0 and 1 differ, as do "80" and 80.
local function show(value)
  if type(value) == "number" then return math.type(value) .. ":" .. tostring(value) end
  if type(value) == "string" then  -- bytes over 127 escaped: Retrolua's print shows text as UTF-8
    return (string.format("%q", value):gsub("[\128-\255]", function(c) return "\\" .. c:byte() end))
  end
  if type(value) == "table" then
    local class = getmetatable(value) and value.class
    if class then return "object:" .. class end
    return "table#" .. #value
  end
  return tostring(value)
end

local function say(label, ...)
  local parts = table.pack(...)
  for i = 1, parts.n do parts[i] = show(parts[i]) end
  print("ls " .. label .. " " .. table.concat(parts, " "))
end

-- The message of a failed call, without its "file:line:" (the chunk name differs between the two runs).
local function failure(f, ...)
  local ok, message = pcall(f, ...)
  if ok then return "no error" end
  return (tostring(message):gsub("^[^:]*:%d+: ", ""))
end

local peer_port = assert(os.getenv("LUASOCKET_PEER"), "LUASOCKET_PEER is not set")
local echo_port = assert(os.getenv("LUASOCKET_ECHO"), "LUASOCKET_ECHO is not set")
local function hex(text) return (text:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end

-- The module ---------------------------------------------------------------------------------------------------
say("version", socket._VERSION, socket == require("socket.core"))
say("constants", socket._SETSIZE, socket._SOCKETINVALID, socket._DATAGRAMSIZE, socket.BLOCKSIZE)
say("gettime", math.type(socket.gettime()), socket.gettime() > 1.6e9)
say("sleep", socket.sleep(0.01))
say("skip", socket.skip(1, "a", "b", "c"))
say("skip all", socket.skip(3, "a", "b"))
say("toip", socket.dns.toip("localhost"))
local info = socket.dns.getaddrinfo("127.0.0.1")
say("getaddrinfo", #info, info[1].family, info[1].addr)
say("protect", socket.protect(function() socket.try(nil, "oops") end)())
say("protect passes", socket.protect(function(a, b) return a, b end)(1, "two"))
say("protect rethrows", failure(socket.protect(function() error("real", 0) end)))
local finalized = false
say("newtry", failure(socket.newtry(function() finalized = true end), false, "boom") ~= "no error", finalized)
say("select nothing", socket.select(nil, nil, 0))

-- A fresh object ------------------------------------------------------------------------------------------------
local master = socket.tcp()
say("master", master.class, (tostring(master):match("^[^:]*")), master:getfamily())
say("master timeout", master:gettimeout())
say("settimeout", master:settimeout(2), master:gettimeout())
say("settimeout total", master:settimeout(3, "t"), master:gettimeout())
say("settimeout nil", master:settimeout(nil), master:gettimeout())
say("master sockname", master:getsockname())
say("master dirty", master:dirty())
say("tcp6", socket.tcp6():getfamily(), socket.udp().class, socket.udp6():getfamily())
say("bad mode", failure(function() return master:settimeout(1, "x") end))
say("bad timeout", failure(function() return master:settimeout("soon") end))
say("accept on master", failure(function() return master:accept() end))
say("receive on master", failure(function() return master:receive() end))
say("send on master", failure(function() return master:send("x") end))
say("bind without port", failure(function() return master:bind("127.0.0.1") end))
say("connect without port", failure(function() return master:connect("127.0.0.1") end))
say("master close", master:close(), master:close())

-- A server and an accepted client ---------------------------------------------------------------------------------
local server = assert(socket.bind("127.0.0.1", 0))
local ip, port, family = server:getsockname()
say("server", server.class, ip, type(port), family)
say("server option", server:setoption("reuseaddr", true), server:getoption("reuseaddr"))
say("server keepalive", server:getoption("keepalive"))
say("bad option", failure(function() return server:setoption("bogus", true) end))
say("bad getoption", failure(function() return server:getoption("bogus") end))
say("listen on server", failure(function() return server:listen() end))
say("server peername", server:getpeername())
server:settimeout(0)
say("accept nothing", server:accept())
say("select server idle", socket.select({ server }, nil, 0))
local again = socket.tcp()
say("address in use", again:bind("127.0.0.1", port))
again:close()

local control = assert(socket.connect("127.0.0.1", peer_port))
control:settimeout(10)
say("control", control.class)
control:send("dial " .. port .. " " .. hex("ping\nrest") .. "\n")
say("dialed", control:receive())
local ready = socket.select({ server }, nil, 10)
say("select server", #ready, ready[1] == server, ready[server])
server:settimeout(10)
local accepted = assert(server:accept())
say("accepted", accepted.class, accepted:gettimeout())
local peer_ip, peer_port_number, peer_family = accepted:getpeername()
say("accepted peer", peer_ip, math.type(peer_port_number), peer_family)
accepted:settimeout(10)
say("accepted line", accepted:receive())
say("accepted rest", accepted:receive("*a"))
say("accepted closed", accepted:receive())
say("accepted closed all", accepted:receive("*a"))
say("accepted closed count", accepted:receive(2, "pre"))
say("accepted close", accepted:close())
say("closed peername", accepted:getpeername())
say("closed receive", accepted:receive())
say("closed send", accepted:send("x"))
say("closed getfd", accepted:getfd())
say("server close", server:close())
say("accept after close", server:accept())

-- Receiving patterns from a client ---------------------------------------------------------------------------------
say("getfd", math.type(control:getfd()), control:getfd() > 0)
control:send("send " .. hex("hello\r\nwor\rld\nabcdefg") .. "\n")
say("line", control:receive())
say("line star", control:receive("*l"))
say("count", control:receive(3))
say("count prefix", control:receive(2, "pre-"))
say("count zero", control:receive(0))
say("line pattern word", control:receive("*line"))
control:send("send " .. hex("tail") .. "\n")
say("select readable", #socket.select({ control }, nil, 10))
control:settimeout(0)
say("partial line", control:receive())
control:send("send " .. hex("12345") .. "\n")
control:settimeout(10)
say("count waits", control:receive(5))
control:settimeout(0)
say("nothing", control:receive())
say("nothing count", control:receive(3, "x"))
say("nothing all", control:receive("*a"))
say("dirty", control:dirty())
say("bad pattern", failure(function() return control:receive("x") end))
say("bad pattern type", failure(function() return control:receive({}) end))
say("bad shutdown", failure(function() return control:shutdown("sideways") end))
say("bind on client", failure(function() return control:bind("127.0.0.1", 0) end))
say("accept on client", failure(function() return control:accept() end))
say("getstats on master", failure(function() return socket.tcp():getstats() end))

-- Binary garbage, many lines at once, a line dripped a byte at a time ---------------------------------------------
control:settimeout(10)
local every_byte = {}
for byte = 0, 255 do every_byte[#every_byte + 1] = string.char(byte) end
every_byte = table.concat(every_byte)
control:send("send " .. hex(every_byte .. "\0\r\255\n") .. "\n")
say("every byte", control:receive(256) == every_byte)
say("binary line", control:receive())
control:send("lines 20000\n")
local count, last = 0, nil
while count < 20000 do
  local line, err = control:receive()
  if not line then
    say("lines failed", err)
    break
  end
  count, last = count + 1, line
end
say("lines", count, last)
control:send("drip " .. hex("dripped\r\nslowly\n") .. "\n")
say("drip", control:receive())
say("drip count", control:receive(3), control:receive(4))

-- Sending ------------------------------------------------------------------------------------------------------------
control:settimeout(10)
say("send range", control:send("0123456789", 3, 5))
say("send negative", control:send("0123456789", -3))
say("send empty", control:send(""))
say("send reversed", control:send("abc", 3, 1))
say("send number", control:send(42))
control:send("\n")
local big = string.rep("0123456789abcdef", 262144)  -- 4 MiB: more than the host's send buffer
control:send("sink " .. #big .. "\n")
say("send big", control:send(big))
say("sunk", control:receive())
local sent = select(2, control:getstats())
say("stats sent", sent)
say("setstats", control:setstats(1, 2, 3), (control:getstats()))

-- The peer closes ----------------------------------------------------------------------------------------------------
control:send("sendclose " .. hex("last words") .. "\n")
say("all until closed", control:receive("*a"))
say("after close", control:receive())
say("after close all", control:receive("*a"))
say("shutdown", control:shutdown("both"))
say("client close", control:close(), tostring(control):match("^[^:]*"))

local lines = assert(socket.connect("127.0.0.1", peer_port))
lines:settimeout(10)
lines:send("sendclose " .. hex("unfinished") .. "\n")
say("closed mid-line", lines:receive())
say("closed again", lines:receive(4))
lines:close()

local counted = assert(socket.connect("127.0.0.1", peer_port))
counted:settimeout(10)
counted:send("sendclose " .. hex("abc") .. "\n")
say("closed mid-count", counted:receive(5, ">"))
counted:close()

local half = assert(socket.connect("127.0.0.1", peer_port))
half:settimeout(10)
half:send("halfclose " .. hex("one way") .. "\n")
say("half-open receive", half:receive("*a"))
say("half-open send", half:send("still heard\n"))
say("half-open receive again", half:receive())
half:close()

local ender = assert(socket.connect("127.0.0.1", peer_port))
ender:settimeout(10)
ender:send("readall\nfive!")
say("shutdown send", ender:shutdown("send"))
say("send after shutdown", ender:send("x"))
say("the peer read to the end", ender:receive())
ender:close()

-- Connecting to nothing ----------------------------------------------------------------------------------------------
local probe = assert(socket.bind("127.0.0.1", 0))
local _, free_port = probe:getsockname()
probe:close()
say("refused", socket.connect("127.0.0.1", free_port))
local refused = socket.tcp()
refused:settimeout(10)
say("refused method", refused:connect("127.0.0.1", free_port), refused.class)
say("refused again", refused:connect("127.0.0.1", free_port))
local connected = socket.tcp()
connected:settimeout(10)
say("connect", connected:connect("127.0.0.1", peer_port))
say("connect again", connected:connect("127.0.0.1", peer_port))
say("connect number port", socket.connect("127.0.0.1", tonumber(peer_port)).class)
connected:close()

-- UDP ----------------------------------------------------------------------------------------------------------------
local udp = socket.udp()
say("udp", udp.class, (tostring(udp):match("^[^:]*")), udp:getsockname())
say("udp timeout", udp:gettimeout())
say("udp setsockname", udp:setsockname("127.0.0.1", 0))
local udp_ip, udp_port, udp_family = udp:getsockname()
say("udp sockname", udp_ip, type(udp_port), udp_family)
say("udp bound twice", udp:setsockname("127.0.0.1", 0))
say("udp send unconnected", failure(function() return udp:send("x") end))
say("udp getpeername unconnected", failure(function() return udp:getpeername() end))
udp:settimeout(10)
say("udp sendto", udp:sendto("dgram", "127.0.0.1", echo_port))
local data, from_ip, from_port = udp:receivefrom()
say("udp receivefrom", data, from_ip, math.type(from_port), from_port == tonumber(echo_port))
say("udp sendto long", udp:sendto("123456789", "127.0.0.1", echo_port))
say("udp receive cut", udp:receive(4))
udp:settimeout(0)
say("udp nothing", udp:receive())
say("udp nothing from", udp:receivefrom())
say("udp too long", udp:sendto(string.rep("x", 70000), "127.0.0.1", echo_port))
say("udp setpeername", udp:setpeername("127.0.0.1", echo_port), udp.class)
local peer_host, peer_udp_port, peer_udp_family = udp:getpeername()
say("udp peer", peer_host, math.type(peer_udp_port), peer_udp_family, peer_udp_port == tonumber(echo_port))
say("udp sendto connected", failure(function() return udp:sendto("x", "127.0.0.1", echo_port) end))
say("udp receivefrom connected", failure(function() return udp:receivefrom() end))
udp:settimeout(10)
say("udp send", udp:send("abc"))
say("udp receive", udp:receive())
say("udp unconnect", udp:setpeername("*"), udp.class)
say("udp close", udp:close(), udp:close())
say("udp sockname closed", udp:getsockname())

local lazy = socket.udp()
lazy:settimeout(10)
say("udp lazy sendto", lazy:sendto("auto", "127.0.0.1", echo_port))
say("udp lazy receive", lazy:receive())
local lazy_peer = socket.udp()
say("udp lazy setpeername", lazy_peer:setpeername("localhost", echo_port))
lazy_peer:settimeout(10)
say("udp lazy send", lazy_peer:send("connected"))
say("udp lazy connected receive", lazy_peer:receive())
say("done")
