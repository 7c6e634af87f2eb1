-- LuaSocket 3.0's API (`socket` and `socket.core`, one table as in LuaSocket) over the host's `net` module, for
-- scripts written against LuaSocket: the prelude (lua/host/prelude.lua) serves it to require "socket",
-- require "socket.core" and package.loadlib(…, "luaopen_socket_core"), with the `net` table it kept and
-- `part`, which loads the other files of this folder. Sockets need the network permission as net does
-- (--allow-net: loopback); without it bind and connect return nil and net's message naming the flag.
-- Waits (timeouts, select, sleep) are the host's time, at most a second per host call, so they never trip the
-- runaway-script watchdog; settimeout(0) never waits. Names are resolved by the host, not here: dns answers
-- for literals and "localhost" only.
local net, part = ...

local type, tostring, error, select, pcall = type, tostring, error, select, pcall
local setmetatable, ipairs, format, min = setmetatable, ipairs, string.format, math.min
local unpack, pack = table.unpack, table.pack

local common = part("common", net)
local tcp = part("tcp", net, common)
local udp = part("udp", net, common)
local state = common.state

local socket = {
  _VERSION = "LuaSocket 3.0.0",
  _SETSIZE = 1024,
  _SOCKETINVALID = -1,
  _DATAGRAMSIZE = 8192,
  BLOCKSIZE = 2048,
}

function socket.__unload() end

function socket.tcp() return tcp.new("inet", "tcp{master}") end
function socket.tcp4() return tcp.new("inet", "tcp{master}") end
function socket.tcp6() return tcp.new("inet6", "tcp{master}") end
function socket.udp() return udp.new("inet") end
function socket.udp4() return udp.new("inet") end
function socket.udp6() return udp.new("inet6") end

local function bad(number, name, message)
  error(format("bad argument #%d to '%s' (%s)", number, name, message), 3)
end

local function check_string(value, number, name)
  if type(value) == "string" then return value end
  if type(value) == "number" then return common.number_text(value) end
  bad(number, name, "string expected, got " .. (value == nil and "no value" or type(value)))
end

local function check_number(value, number, name)
  local n = tonumber(value)
  if n then return n end
  bad(number, name, "number expected, got " .. (value == nil and "no value" or type(value)))
end

-- Time -------------------------------------------------------------------------------------------------------

local epoch = os.time() - common.now()  -- wall-clock seconds at the host clock's zero

function socket.gettime()
  return epoch + common.now() + 0.0
end

function socket.sleep(seconds)
  local deadline = common.now() + check_number(seconds, 1, "sleep")
  while true do
    local ms = common.wait_ms(deadline)
    if ms == 0 or not common.sleep_ms(ms) then return end
  end
end

-- Connecting and binding in one call -------------------------------------------------------------------------

-- The object once its connect or bind went well; else it is closed and the call gives nil and why.
local function opened(object, ok, message)
  if ok then return object end
  object:close()
  return nil, message
end

-- A connected "tcp{client}" (waiting as long as the connection takes), or nil and why. The local address
-- and port are not supported by the host and are ignored.
function socket.connect(address, port, _, _, family)
  address = check_string(address, 1, "connect")
  port = check_string(port, 2, "connect")
  local object = tcp.new(family == "inet6" and "inet6" or "inet", "tcp{master}")
  return opened(object, object:connect(address, port))
end

function socket.connect4(address, port, laddress, lport)
  return socket.connect(address, port, laddress, lport, "inet")
end

function socket.connect6(address, port, laddress, lport)
  return socket.connect(address, port, laddress, lport, "inet6")
end

-- A listening "tcp{server}" on host:port ("*": every address, which needs the grant for it), or nil and why.
function socket.bind(host, port, backlog)
  host = check_string(host, 1, "bind")
  if host == "*" then host = "0.0.0.0" end
  local object = tcp.new(common.ipv6(host) and "inet6" or "inet", "tcp{master}")
  local ok, message = object:bind(host, port)
  if ok then ok, message = object:listen(backlog) end
  return opened(object, ok, message)
end

-- select ----------------------------------------------------------------------------------------------------

-- The sockets of a select list, each with its state: ours directly, others (LuaSocket's sources and sinks)
-- through their getfd. Closed sockets and entries without getfd are skipped, as LuaSocket skips them.
local function members(list, number)
  if list == nil then return {} end
  if type(list) ~= "table" then bad(number, "select", "table expected, got " .. type(list)) end
  local found, i = {}, 1
  while list[i] ~= nil do
    local object = list[i]
    local s = state[object]
    if s == nil and object.getfd then
      local owner = common.by_fd[object:getfd()]
      s = owner and state[owner]
    end
    if s and not s.closed then found[#found + 1] = { object, s } end
    i = i + 1
  end
  return found
end

local function dirty(object, s)
  if s.kind ~= "tcp" then return false end
  if state[object] == nil and object.dirty then return object:dirty() and true or false end
  return s.first <= #s.buffer or s.receive_shut == true
end

local function writable(s)
  if s.kind == "udp" then return s.udp ~= nil end
  return s.conn ~= nil and s.conn:state() ~= "connecting"
end

-- LuaSocket's lists also map each socket to its position: a float in the readable list, an integer in the
-- writable one (as its C code pushes them).
local function add(list, object, position)
  list[#list + 1] = object
  list[object] = position(#list)
end
local function float(n) return n + 0.0 end
local function integer(n) return n end

-- Readable (data buffered or waiting, a connection to accept, an end of stream) and writable sockets among
-- `recvt` and `sendt`, waiting at most `timeout` seconds (nil or negative: until one is); LuaSocket's
-- results: the two lists (each also mapping a socket to its position) and "timeout" when both are empty.
function socket.select(recvt, sendt, timeout)
  local readers, writers = members(recvt, 1), members(sendt, 2)
  local limit = timeout == nil and -1 or check_number(timeout, 3, "select")
  local deadline = limit >= 0 and common.now() + limit or nil
  while true do
    local readable, writable_list, handles, owner = {}, {}, {}, {}
    for _, entry in ipairs(readers) do
      local object, s = entry[1], entry[2]
      if dirty(object, s) then
        add(readable, object, float)
      else
        local handle = s.kind == "udp" and s.udp or s.conn or (s.listener and common.class(object) ~= "tcp{master}"
          and s.listener)
        if handle then
          handles[#handles + 1] = handle
          owner[handle] = object
        end
      end
    end
    local connecting = false
    for _, entry in ipairs(writers) do
      if writable(entry[2]) then
        add(writable_list, entry[1], integer)
      elseif entry[2].conn then
        connecting = true
      end
    end
    local ms = 0
    if #readable == 0 and #writable_list == 0 then
      ms = common.wait_ms(deadline)
      if connecting then ms = min(ms, 10) end  -- no host wait for a connection to open: look again soon
    end
    local ready = #handles > 0 and net.select(handles, ms) or nil
    if #handles == 0 and ms > 0 and not common.sleep_ms(ms) then ms = 0 end
    for _, handle in ipairs(ready or {}) do
      if owner[handle] and not readable[owner[handle]] then add(readable, owner[handle], float) end
    end
    if #readable > 0 or #writable_list > 0 then return readable, writable_list end
    if ms == 0 or (deadline and common.wait_ms(deadline) == 0) then return {}, {}, "timeout" end
    if ready == nil and #handles > 0 then return {}, {}, "timeout" end  -- the host refused (no permission)
  end
end

-- try, protect, skip, choose ----------------------------------------------------------------------------------

-- Errors thrown by a try function: tables known by this weak set, unwrapped by protect.
local thrown = setmetatable({}, { __mode = "k" })

function socket.newtry(finalizer)
  return function(...)
    if (...) then return ... end
    if finalizer ~= nil then finalizer() end
    local wrapped = { (select(2, ...)) }
    thrown[wrapped] = true
    error(wrapped, 0)
  end
end

socket.try = socket.newtry()

function socket.protect(f)
  return function(...)
    local results = pack(pcall(f, ...))
    if results[1] then return unpack(results, 2, results.n) end
    local problem = results[2]
    if type(problem) == "table" and thrown[problem] then return nil, problem[1] end
    error(problem, 0)
  end
end

function socket.skip(count, ...)
  count = check_number(count, 1, "skip")
  if count >= select("#", ...) then return end
  if count < 0 then count = 0 end
  return select(count + 1, ...)
end

function socket.choose(choices)
  return function(name, first, second)
    if type(name) ~= "string" then name, first, second = "default", name, first end
    local f = choices[name or "nil"]
    if not f then error("unknown key (" .. tostring(name) .. ")", 3) end
    return f(first, second)
  end
end

-- LTN12 sources and sinks over a socket ------------------------------------------------------------------------

local function wrapper(sock, call)
  return setmetatable({
    getfd = function() return sock:getfd() end,
    dirty = function() return sock:dirty() end,
  }, { __call = call })
end

socket.sinkt = {
  ["close-when-done"] = function(sock)
    return wrapper(sock, function(_, chunk)
      if chunk then return sock:send(chunk) end
      sock:close()
      return 1
    end)
  end,
  ["keep-open"] = function(sock)
    return wrapper(sock, function(_, chunk)
      if chunk then return sock:send(chunk) end
      return 1
    end)
  end,
}
socket.sinkt.default = socket.sinkt["keep-open"]
socket.sink = socket.choose(socket.sinkt)

socket.sourcet = {
  ["by-length"] = function(sock, length)
    return wrapper(sock, function()
      if length <= 0 then return nil end
      local chunk, problem = sock:receive(min(socket.BLOCKSIZE, length))
      if problem then return nil, problem end
      length = length - #chunk
      return chunk
    end)
  end,
  ["until-closed"] = function(sock)
    local finished = false
    return wrapper(sock, function()
      if finished then return nil end
      local chunk, problem, partial = sock:receive(socket.BLOCKSIZE)
      if not problem then return chunk end
      if problem ~= "closed" then return nil, problem end
      sock:close()
      finished = true
      return partial
    end)
  end,
}
socket.sourcet.default = socket.sourcet["until-closed"]
socket.source = socket.choose(socket.sourcet)

-- dns: literals and localhost (the host resolves other names itself, when the grant allows them) -----------

local NOT_KNOWN = "host or service not provided, or not known"
local dns = {}
socket.dns = dns

local function family_of(host)
  if host == "localhost" or common.ipv4(host) then return "inet" end
  if common.ipv6(host) then return "inet6" end
  return nil
end

local function loopback(address)
  return address == "localhost" or address == "::1" or (common.ipv4(address) and address:sub(1, 4) == "127.")
end

function dns.getaddrinfo(host)
  host = check_string(host, 1, "getaddrinfo")
  local family = family_of(host)
  if not family then return nil, NOT_KNOWN end
  return { { family = family, addr = common.host(host, family) } }
end

function dns.toip(host)
  host = check_string(host, 1, "toip")
  local family = family_of(host)
  if not family then return nil, NOT_KNOWN end
  local address = common.host(host, family)
  return address, { name = host, alias = {}, ip = { address } }
end

function dns.tohostname(address)
  address = check_string(address, 1, "tohostname")
  if not loopback(address) then return nil, NOT_KNOWN end
  return "localhost", { name = "localhost", alias = {}, ip = { common.host(address, family_of(address)) } }
end

function dns.getnameinfo(host, port)
  if host ~= nil and not loopback(check_string(host, 1, "getnameinfo")) then return nil, NOT_KNOWN end
  return host and { "localhost" } or nil, port and common.number_text(tonumber(port) or 0) or nil
end

function dns.gethostname()
  return "localhost"
end

return socket
