-- LuaSocket over the host's `net` module: what the TCP and UDP objects share — their classes (LuaSocket's
-- "tcp{master}", "udp{connected}", …), each object's private state, argument checks worded as LuaSocket's,
-- timeouts and waits on the host, and addresses in net's "HOST:PORT" text.
-- Loaded by lua/retrolua/luasocket/init.lua with the `net` table the prelude kept.
local net = ...

local type, tostring, tonumber, error = type, tostring, tonumber, error
local setmetatable, getmetatable, pairs = setmetatable, getmetatable, pairs
local format, find, match, sub = string.format, string.find, string.match, string.sub
local math_type, tointeger, ceil, min = math.type, math.tointeger, math.ceil, math.min

local common = {}

-- Each object's state (its net handle, buffer, timeouts…), out of the script's reach; weak keys, so an
-- object the script drops goes with its host socket (net's userdata closes it when collected).
common.state = setmetatable({}, { __mode = "k" })

-- LuaSocket's classes: one metatable each, with every method of the kind in __index (a method checks the
-- class itself, as LuaSocket's do) and the class name as `class`.
local class_of = {}
common.classes = {}

function common.define(names, methods)
  for _, name in pairs(names) do
    local index = { class = name }
    for method, f in pairs(methods) do index[method] = f end
    local metatable = {
      __index = index,
      __tostring = function(self) return format("%s: %p", class_of[getmetatable(self)], self) end,
    }
    class_of[metatable] = name
    common.classes[name] = metatable
  end
end

function common.class(object)
  return type(object) == "table" and class_of[getmetatable(object)] or nil
end

-- The state of `self` when its class is one of the accepted ("tcp{client}", or a group such as "tcp{any}"),
-- else LuaSocket's error for a method called on the wrong object.
function common.self(self, method, expected, accepted)
  local class = common.class(self)
  if class and accepted[class] then return common.state[self] end
  error(format("calling '%s' on bad self (%s expected)", method, expected), 3)
end

-- Arguments, numbered as the script sees a method call (self not counted), worded as luaL_check* words them.
-- `level` 4 (the default) blames the caller of the method that called a check below.
local function bad(number, method, message, level)
  error(format("bad argument #%d to '%s' (%s)", number, method, message), level or 4)
end
common.bad = bad

local function typename(value)
  return math_type(value) and "number" or type(value)
end

function common.string(value, number, method)
  if type(value) == "string" then return value end
  if type(value) == "number" then return common.number_text(value) end
  bad(number, method, "string expected, got " .. (value == nil and "no value" or typename(value)))
end

function common.optional_string(value, number, method, default)
  if value == nil then return default end
  return common.string(value, number, method)
end

function common.number(value, number, method, default)
  if value == nil and default ~= nil then return default end
  local n = tonumber(value)
  if n then return n end
  bad(number, method, "number expected, got " .. (value == nil and "no value" or typename(value)))
end

-- A number as C's lua_tolstring gives it to LuaSocket, except that an integral float is written as the
-- integer (a port 8080.0 means 8080).
function common.number_text(value)
  return tostring(tointeger(value) or value)
end

-- Seconds on the host's monotonic clock.
function common.now()
  local now = net.clock()
  return type(now) == "number" and now or os.clock()
end

-- Timeouts as LuaSocket keeps them: `block` for each wait, `total` for the whole call; negative: none.
function common.new_timeouts(s)
  s.block, s.total = -1, -1
end

-- The moment the current call gives up (nil: never), from the timeouts in force when it began.
function common.deadline(s)
  local limit = s.block
  if s.total >= 0 and (limit < 0 or s.total < limit) then limit = s.total end
  if limit < 0 then return nil end
  return common.now() + limit
end

-- Milliseconds to wait now for a call ending at `deadline` (at most a second at a time: the host bounds each
-- wait), or 0 once it has passed.
function common.wait_ms(deadline)
  if deadline == nil then return 1000 end
  local left = deadline - common.now()
  if left <= 0 then return 0 end
  return min(1000, ceil(left * 1000))
end

-- Sleeps up to `ms` on the host (host time, not the script's): net.select with no sockets is a plain wait.
-- False when the host refuses (no network permission): there is nothing to wait for then.
function common.sleep_ms(ms)
  if ms <= 0 then return true end
  return net.select({}, ms) ~= nil
end

-- What the host says about a failure, in LuaSocket's words (the host already uses them; its own remarks,
-- such as the permission a refusal names, pass through).
function common.reason(message)
  if message == nil or message == "closed by the peer" then return "closed" end
  return tostring(message)
end

-- Addresses -------------------------------------------------------------------------------------------------

local function ipv4(host)
  local a, b, c, d = match(host, "^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
  if not a then return false end
  for _, part in pairs({ a, b, c, d }) do
    if #part > 3 or tonumber(part) > 255 then return false end
  end
  return true
end
common.ipv4 = ipv4

function common.ipv6(host)
  return find(host, ":", 1, true) ~= nil and match(host, "^[%x:%.]+$") ~= nil
end

-- The address net is given for `host` (a literal, "*", "localhost" or a name the host resolves) in `family`.
function common.host(host, family)
  if host == "*" then return family == "inet6" and "::" or "0.0.0.0" end
  if host == "localhost" then return family == "inet6" and "::1" or "127.0.0.1" end
  return host
end

function common.join(host, port)
  if find(host, ":", 1, true) then return "[" .. host .. "]:" .. port end
  return host .. ":" .. port
end

-- net's "IP:PORT" / "[IP]:PORT" as LuaSocket's ip, port, family.
function common.split(address)
  local host, port = match(address or "", "^%[(.*)%]:(%d+)$")
  if host then return host, port, "inet6" end
  host, port = match(address or "", "^(.*):(%d+)$")
  return host, port, "inet"
end

-- Fake descriptors: unique numbers for getfd (socket.select takes any object with a getfd method, such as
-- LuaSocket's sources and sinks, and finds the socket by it).
local next_fd = 3
common.by_fd = setmetatable({}, { __mode = "v" })

function common.new_fd(object)
  next_fd = next_fd + 1
  common.by_fd[next_fd] = object
  return next_fd
end

function common.forget_fd(s)
  common.by_fd[s.fd] = nil
  s.fd = -1
end

-- Methods every TCP and UDP object has the same way. ---------------------------------------------------------

function common.define_shared(methods, group, accepted)
  function methods.getfd(self)
    return common.self(self, "getfd", group, accepted).fd + 0.0
  end
  function methods.setfd(self, fd)  -- descriptors are the host's: a number given here changes nothing
    common.self(self, "setfd", group, accepted)
    common.number(fd, 1, "setfd")
  end
  function methods.getfamily(self)
    return common.self(self, "getfamily", group, accepted).family == "inet6" and "inet6" or "inet4"
  end
  function methods.settimeout(self, value, mode)
    local s = common.self(self, "settimeout", group, accepted)
    value = common.number(value, 1, "settimeout", -1)
    mode = common.optional_string(mode, 2, "settimeout", "b")
    local first = sub(mode, 1, 1)
    if first == "b" then
      s.block = value
    elseif first == "t" or first == "r" then
      s.total = value
    else
      bad(2, "settimeout", "invalid timeout mode", 3)
    end
    return 1.0
  end
  function methods.gettimeout(self)
    local s = common.self(self, "gettimeout", group, accepted)
    return s.block + 0.0, s.total + 0.0
  end
end

-- Options are remembered and answered back; the host's sockets keep their own settings. `known` holds each
-- settable option's default; setting one before the socket exists fails as LuaSocket's does (no descriptor
-- yet).
function common.setoption(s, known, name, value, exists)
  name = common.string(name, 1, "setoption")
  if known[name] == nil then bad(1, "setoption", "unsupported option `" .. name .. "'") end
  if not exists then return nil, "setsockopt failed" end
  s.options[name] = value
  return 1.0
end

function common.getoption(s, known, gettable, name)
  name = common.string(name, 1, "getoption")
  if not gettable[name] then bad(1, "getoption", "unsupported option `" .. name .. "'") end
  local value = s.options[name]
  if value == nil then value = known[name] end
  if type(value) == "table" then value = { on = value.on, timeout = value.timeout } end
  return value
end

return common
