-- LuaSocket's TCP objects over net.tcp_listen / net.tcp_connect: "tcp{master}" (new), "tcp{server}" (bound
-- and listening), "tcp{client}" (connected or accepted). Results, classes and error strings as LuaSocket
-- 3.0's (its numbers are floats, a local port is text, a peer's port an integer).
-- Known differences: a socket is bound and listening in one host call, so bind() already accepts
-- connections; connect() after bind() drops the local address.
local net, common = ...

local type, setmetatable, tonumber, floor, format = type, setmetatable, tonumber, math.floor, string.format
local find, sub, gsub, concat = string.find, string.sub, string.gsub, table.concat
local state, classes = common.state, common.classes

local MASTER = { ["tcp{master}"] = true }
local SERVER = { ["tcp{server}"] = true }
local CLIENT = { ["tcp{client}"] = true }
local ANY = { ["tcp{master}"] = true, ["tcp{server}"] = true, ["tcp{client}"] = true }
local BACKLOG = 32  -- LuaSocket's own default for listen()
local SLICE = 1048576  -- the most one host send takes (its send buffer): a long send copies no more at a time

local tcp = {}
local methods = {}

function tcp.new(family, class, fields)
  local object = setmetatable({}, classes[class])
  local s = fields or {}
  s.kind, s.family, s.buffer, s.first = "tcp", family, "", 1
  s.sent, s.received, s.born, s.options = 0, 0, common.now(), {}
  common.new_timeouts(s)
  s.fd = common.new_fd(object)
  state[object] = s
  return object
end

function methods.bind(self, address, port)
  local s = common.self(self, "bind", "tcp{master}", MASTER)
  address = common.string(address, 1, "bind")
  port = common.string(port, 2, "bind")
  if s.closed then return nil, "closed" end
  if s.listener then return nil, "Invalid argument" end
  local bind = common.join(common.host(address, s.family), port)
  local listener, message = net.tcp_listen({ bind = bind, backlog = BACKLOG })
  if not listener then return nil, common.reason(message) end
  s.listener = listener
  return 1.0
end

function methods.listen(self, backlog)
  local s = common.self(self, "listen", "tcp{master}", MASTER)
  common.number(backlog, 1, "listen", BACKLOG)
  if s.closed then return nil, "closed" end
  if not s.listener then  -- as the system does for listen() on an unbound socket: every address, any port
    local listener, message = net.tcp_listen({ bind = common.join(common.host("*", s.family), "0"), backlog = BACKLOG })
    if not listener then return nil, common.reason(message) end
    s.listener = listener
  end
  setmetatable(self, classes["tcp{server}"])
  return 1.0
end

function methods.accept(self)
  local s = common.self(self, "accept", "tcp{server}", SERVER)
  if s.closed then return nil, "closed" end
  local deadline = common.deadline(s)
  while true do
    local conn, problem = s.listener:accept()
    if conn then return tcp.new(s.family, "tcp{client}", { conn = conn, reported = true }) end
    if problem then return nil, common.reason(problem) end  -- the script holds as many sockets as it may
    local ms = common.wait_ms(deadline)
    if ms == 0 then return nil, "timeout" end
    s.listener:wait(ms)
  end
end

function methods.connect(self, address, port)
  local s = common.self(self, "connect", "tcp{any}", ANY)
  address = common.string(address, 1, "connect")
  port = common.string(port, 2, "connect")
  setmetatable(self, classes["tcp{client}"])  -- as LuaSocket: even when the connect fails or is still going on
  if s.closed then return nil, "closed" end
  if s.conn then
    local now = s.conn:state()
    if now == "open" then  -- connect(2) again: success once after a connect that went on, then EISCONN
      if s.reported then return nil, "already connected" end
      s.reported = true
      return 1.0
    elseif now == "connecting" then
      return nil, "Operation already in progress"
    end
    s.conn = nil  -- a failed attempt: this call tries again
  end
  if s.listener then
    s.listener:close()
    s.listener = nil
  end
  local conn, message = net.tcp_connect(common.join(common.host(address, s.family), port))
  if not conn then return nil, common.reason(message) end
  s.conn = conn
  local deadline = common.deadline(s)
  while true do
    local now, why = conn:state()
    if now == "open" then return 1.0 end  -- the next connect succeeds once more, as connect(2) does
    if now == "closed" then
      return nil, common.reason(why)
    end
    local ms = common.wait_ms(deadline)
    if ms == 0 then return nil, "timeout" end
    conn:wait(ms)
  end
end

-- Receiving: the bytes the host handed over and no pattern took yet are s.buffer from s.first on (a position,
-- so taking a line copies only the line). A call collects what it takes in `pieces`, searching only new bytes:
-- a peer dripping a long line costs linear time.

-- What the host holds now: the bytes, or nil and "timeout" (nothing yet) or "closed".
local function pull(s)
  if s.closed or s.receive_shut or not s.conn then return nil, "closed" end
  local data, why = s.conn:receive()
  if data and #data > 0 then
    s.received = s.received + #data
    return data
  end
  if data or why == "timeout" then return nil, "timeout" end
  return nil, common.reason(why)
end

-- Takes what the pattern wants of `chunk` from `first` into `pieces`: the position after it when the pattern is
-- complete there, or nil when the whole rest was taken and more is needed ("all" ends only with the stream).
local function consume(chunk, first, kind, count, pieces)
  if kind == "line" then
    local stop = find(chunk, "\n", first, true)
    if stop then
      pieces[#pieces + 1] = sub(chunk, first, stop - 1)
      return stop + 1
    end
  elseif kind == "count" then
    local wanted = count - pieces.size
    if #chunk - first + 1 >= wanted then
      pieces[#pieces + 1] = sub(chunk, first, first + wanted - 1)
      pieces.size = count
      return first + wanted
    end
  end
  pieces[#pieces + 1] = first == 1 and chunk or sub(chunk, first)
  pieces.size = pieces.size + #chunk - first + 1
  return nil
end

-- The text of what a call took; a line loses every CR in it, as LuaSocket's does.
local function joined(pieces, kind)
  local text = concat(pieces)
  if kind == "line" then text = gsub(text, "\r", "") end
  return text
end

local function pattern_of(pattern)
  if pattern == nil then return "line" end
  local count = tonumber(pattern)
  if count then
    if count < 0 then common.bad(1, "receive", "invalid receive pattern") end
    return "count", floor(count)
  end
  if type(pattern) ~= "string" then common.bad(1, "receive", "string expected, got " .. type(pattern)) end
  local text = pattern
  if sub(text, 1, 1) == "*" then text = sub(text, 2) end
  local first = sub(text, 1, 1)
  if first == "l" then return "line" end
  if first == "a" then return "all" end
  common.bad(1, "receive", "invalid receive pattern")
end

function methods.receive(self, pattern, prefix)
  local s = common.self(self, "receive", "tcp{client}", CLIENT)
  local kind, count = pattern_of(pattern)
  prefix = common.optional_string(prefix, 2, "receive", "")
  if kind == "count" and #prefix > 0 then  -- a count includes the partial result given back as the prefix
    if count <= #prefix then return prefix, nil, nil end
    count = count - #prefix
  end
  local pieces = { size = 0 }
  local deadline = common.deadline(s)
  while true do
    if s.first <= #s.buffer then  -- even a count of 0 waits for the first byte, as LuaSocket's does
      local after = consume(s.buffer, s.first, kind, count, pieces)
      if after then
        s.first = after
        return prefix .. joined(pieces, kind), nil, nil
      end
      s.buffer, s.first = "", 1
    end
    local data, why = pull(s)
    if data then
      s.buffer, s.first = data, 1
    elseif why ~= "timeout" then
      -- "*a" succeeds at the end of the stream when this call got something, as LuaSocket's recvall
      if kind == "all" and pieces.size > 0 then return prefix .. joined(pieces, kind), nil, nil end
      return nil, why, prefix .. joined(pieces, kind)
    else
      local ms = common.wait_ms(deadline)
      if ms == 0 then return nil, "timeout", prefix .. joined(pieces, kind) end  -- the partial result leaves
      s.conn:wait(ms)
    end
  end
end

-- Sending: net accepts what fits its bounded send buffer and flushes it on the host; a blocking send waits in
-- short host sleeps for room (net has no wait for writability).
function methods.send(self, data, i, j)
  local s = common.self(self, "send", "tcp{client}", CLIENT)
  data = common.string(data, 1, "send")
  local size = #data
  local start = floor(common.number(i, 2, "send", 1))
  local stop = floor(common.number(j, 3, "send", -1))
  if start < 0 then start = size + start + 1 end
  if stop < 0 then stop = size + stop + 1 end
  if start < 1 then start = 1 end
  if stop > size then stop = size end
  if start > stop then return start - 1.0, nil, nil end
  if s.closed or s.send_shut or not s.conn then return nil, "closed", start - 1.0 end
  local chunk, done = sub(data, start, stop), 0
  local deadline = common.deadline(s)
  while true do
    local piece = chunk
    if done > 0 or #chunk > SLICE then piece = sub(chunk, done + 1, done + SLICE) end
    local accepted, why = s.conn:send(piece)
    if not accepted then return nil, common.reason(why), done + start - 1.0 end
    done = done + accepted
    s.sent = s.sent + accepted
    if done >= #chunk then return done + start - 1.0, nil, nil end
    local ms = common.wait_ms(deadline)
    if ms == 0 then return nil, "timeout", done + start - 1.0 end
    common.sleep_ms(ms < 10 and ms or 10)
  end
end

function methods.close(self)
  local s = common.self(self, "close", "tcp{any}", ANY)
  if not s.closed then
    s.closed, s.buffer, s.first = true, "", 1
    if s.conn then s.conn:close() end
    if s.listener then s.listener:close() end
    common.forget_fd(s)
  end
  return 1.0
end

function methods.shutdown(self, how)
  local s = common.self(self, "shutdown", "tcp{client}", CLIENT)
  how = common.optional_string(how, 1, "shutdown", "both")
  if how ~= "both" and how ~= "send" and how ~= "receive" then
    common.bad(1, "shutdown", format("invalid option '%s'", how), 3)
  end
  if how ~= "receive" then s.send_shut = true end
  if how ~= "send" then s.receive_shut = true end
  if s.conn and not s.closed then
    if how == "both" then
      s.conn:close()  -- the peer sees the end of the stream (pending bytes are flushed first)
    elseif how == "send" then
      s.conn:shutdown("send")  -- a half-close: the peer reads the end of the stream, receiving goes on
    end
  end
  return 1.0
end

function methods.getsockname(self)
  local s = common.self(self, "getsockname", "tcp{any}", ANY)
  local handle = not s.closed and (s.conn or s.listener)
  if not handle then return nil, "Bad file descriptor" end
  return common.split(handle:address())
end

function methods.getpeername(self)
  local s = common.self(self, "getpeername", "tcp{any}", ANY)
  if s.closed or not (s.conn or s.listener) then return nil, "Bad file descriptor" end
  local peer = s.conn and s.conn:state() ~= "connecting" and s.conn:peer()
  if not peer then return nil, "Transport endpoint is not connected" end
  local host, port, family = common.split(peer)
  return host, tonumber(port), family
end

function methods.dirty(self)
  local s = common.self(self, "dirty", "tcp{any}", ANY)
  return s.first <= #s.buffer
end

function methods.getstats(self)
  local s = common.self(self, "getstats", "tcp{client}", CLIENT)
  return s.received + 0.0, s.sent + 0.0, common.now() - s.born + 0.0
end

function methods.setstats(self, received, sent, age)
  local s = common.self(self, "setstats", "tcp{client}", CLIENT)
  s.received = common.number(received, 1, "setstats", s.received)
  s.sent = common.number(sent, 2, "setstats", s.sent)
  if age ~= nil then s.born = common.now() - common.number(age, 3, "setstats") end
  return 1.0
end

-- Options are accepted and remembered (the host sets what its sockets need); they change nothing here.
local SET = {
  keepalive = false, reuseaddr = false, reuseport = false, ["tcp-nodelay"] = false, ["tcp-keepidle"] = 0,
  ["tcp-keepcnt"] = 0, ["tcp-keepintvl"] = 0, linger = { on = false, timeout = 0 }, ["ipv6-v6only"] = false,
  ["recv-buffer-size"] = 0, ["send-buffer-size"] = 0, ["tcp-defer-accept"] = 0, ["tcp-fastopen"] = 0,
  ["tcp-fastopen-connect"] = false,
}
local GET = {
  keepalive = true, reuseaddr = true, reuseport = true, ["tcp-nodelay"] = true, ["tcp-keepidle"] = true,
  ["tcp-keepcnt"] = true, ["tcp-keepintvl"] = true, linger = true, ["recv-buffer-size"] = true,
  ["send-buffer-size"] = true,
}

function methods.setoption(self, name, value)
  local s = common.self(self, "setoption", "tcp{any}", ANY)
  return common.setoption(s, SET, name, value, not s.closed and (s.conn or s.listener))
end

function methods.getoption(self, name)
  return common.getoption(common.self(self, "getoption", "tcp{any}", ANY), SET, GET, name)
end

common.define_shared(methods, "tcp{any}", ANY)
common.define({ "tcp{master}", "tcp{server}", "tcp{client}" }, methods)
return tcp
