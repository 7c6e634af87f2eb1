-- A WebSocket server (RFC 6455) over the host's TCP (`net.tcp_listen`), for endpoints a tool beside the emulator
-- connects to (the UAT tracker endpoint, lua/retrolua/uat.lua). Pure Lua 5.4 apart from `net`; polled once a
-- frame, never blocking it. Everything a client sends is untrusted and bounded: the handshake (8 KiB, 10 s),
-- each message (1 MiB by default, fragments included), what waits to be sent to a client that does not read
-- (4 MiB, then it is dropped) and the number of clients (16).
--
--   local websocket = require("retrolua.websocket")
--   local server = assert(websocket.serve{ bind = "127.0.0.1:65399",
--     on_open = function(client) client:send("hello") end,
--     on_message = function(client, text, binary) client:send(text) end })
--   event.on("frame_end", function() server:poll() end)

local websocket = {}

websocket.GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
websocket.MAX_MESSAGE = 1024 * 1024
websocket.MAX_HEAD = 8192
websocket.MAX_QUEUE = 4 * 1024 * 1024
websocket.MAX_CLIENTS = 16
websocket.HANDSHAKE_SECONDS = 10

local frames = require("retrolua.websocket_reader")
local OP = frames.OP
websocket.OP = OP

local digest = require("retrolua.sha1_base64")
websocket.sha1, websocket.base64_encode, websocket.base64_decode = digest.sha1, digest.base64_encode, digest.base64_decode

--- The Sec-WebSocket-Accept value for a client's Sec-WebSocket-Key.
function websocket.accept_key(key)
  return websocket.base64_encode(websocket.sha1(key .. websocket.GUID))
end

local function http_error(status, reason, extra)
  return string.format("HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n%s",
    status, status == 400 and "Bad Request" or status == 403 and "Forbidden" or status == 426 and "Upgrade Required"
      or "Service Unavailable", #reason + 1, extra or "", reason .. "\n")
end

local function has_token(value, token)
  for word in (value or ""):gmatch("[^,%s]+") do
    if word:lower() == token then return true end
  end
  return false
end

--- Answers a client's opening handshake (`head`: the request up to and including its blank line):
--- `response, true` to switch protocols, or `response, false, reason` (an HTTP error to send before closing).
--- `origins` (optional) lists the Origin headers accepted; a request naming another origin (a web page in a
--- browser) is refused, "*" accepts any.
function websocket.handshake(head, origins)
  local lines = {}
  for line in head:gmatch("(.-)\r\n") do
    if line:find("[\r\n]") then return http_error(400, "a bare CR or LF in the request"), false, "bare CR or LF" end
    lines[#lines + 1] = line
  end
  local method, version = (lines[1] or ""):match("^(%u+) %S+ HTTP/(%d%.%d)$")
  if method ~= "GET" or not version or tonumber(version) < 1.1 then
    return http_error(400, "a WebSocket opening handshake is a GET request of HTTP/1.1"), false, "not a GET request"
  end
  local headers = {}
  for i = 2, #lines do
    if lines[i] ~= "" then
      local name, value = lines[i]:match("^([!#$%%&'*+%-.^_`|~%w]+):[ \t]*(.-)[ \t]*$")
      if not name then return http_error(400, "malformed header line"), false, "malformed header" end
      name = name:lower()
      headers[name] = headers[name] and (headers[name] .. ", " .. value) or value
    end
  end
  if not has_token(headers.upgrade, "websocket") or not has_token(headers.connection, "upgrade") then
    return http_error(400, "Upgrade: websocket and Connection: Upgrade are required"), false, "not an upgrade"
  end
  if headers["sec-websocket-version"] ~= "13" then
    return http_error(426, "only WebSocket version 13 is spoken", "Sec-WebSocket-Version: 13\r\n"), false,
      "version " .. tostring(headers["sec-websocket-version"])
  end
  local key = headers["sec-websocket-key"]
  local nonce = websocket.base64_decode(key)
  if not nonce or #nonce ~= 16 then
    return http_error(400, "Sec-WebSocket-Key must be 16 bytes in base64"), false, "bad key"
  end
  local origin = headers.origin
  if origin then
    local allowed = false
    for _, o in ipairs(origins or {}) do allowed = allowed or o == "*" or o == origin end
    if not allowed then return http_error(403, "origin " .. origin .. " is not allowed"), false, "origin refused" end
  end
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
    .. websocket.accept_key(key) .. "\r\n\r\n", true
end

--- One frame from the server (never masked, always final).
function websocket.frame(opcode, payload)
  local n = #payload
  local header
  if n < 126 then
    header = string.pack(">BB", 0x80 | opcode, n)
  elseif n < 65536 then
    header = string.pack(">BBI2", 0x80 | opcode, 126, n)
  else
    header = string.pack(">BBI8", 0x80 | opcode, 127, n)
  end
  return header .. payload
end

--- A reader of the frames a client sends, of messages up to `max` bytes (default MAX_MESSAGE): see
--- lua/retrolua/websocket_reader.lua.
function websocket.reader(max) return frames.reader(max or websocket.MAX_MESSAGE) end

-- A connected client: a queue of bytes to send (bounded), its reader, and its state
-- ("handshake", "open", "closing" or "closed").
local Client = {}
Client.__index = Client

local function queue(self, bytes)
  if self.state == "closed" then return false end
  self.queued = self.queued + #bytes
  if self.queued > self.server.max_queue then
    self:drop("the client does not read what is sent to it")
    return false
  end
  self.out[#self.out + 1] = bytes
  return true
end

--- Sends a text message (or a binary one when `binary`); false once the client is gone.
function Client:send(text, binary)
  if self.state ~= "open" then return false end
  return queue(self, websocket.frame(binary and OP.binary or OP.text, text))
end

--- Starts the closing handshake with `code` (default 1000) and `reason`.
function Client:close(code, reason)
  if self.state == "open" then
    queue(self, websocket.frame(OP.close, string.pack(">I2", code or 1000) .. (reason or ""):sub(1, 123)))
    self.state = "closing"
    self.closing_since = net.clock()
  elseif self.state == "handshake" then
    self:drop(reason or "closed")
  end
end

--- Closes the connection at once (what was queued goes best-effort).
function Client:drop(why)
  if self.state == "closed" then return end
  self.state, self.why = "closed", why
  if self.conn then
    for _, bytes in ipairs(self.out) do
      if self.conn:send(bytes) ~= #bytes then break end
    end
    self.conn:close()
  end
  self.out, self.queued = {}, 0
  if self.server.on_close then self.server.on_close(self, why) end
end

function Client:peer() return self.address end

local function flush(self)
  while self.out[1] do
    local bytes = self.out[1]
    local sent, err = self.conn:send(bytes)
    if not sent then
      self:drop(err or "closed")
      return
    end
    self.queued = self.queued - sent
    if sent < #bytes then
      self.out[1] = bytes:sub(sent + 1)
      return
    end
    table.remove(self.out, 1)
  end
end

local function on_head(self, server)
  local head_end = self.head:find("\r\n\r\n", 1, true)
  if not head_end then
    if #self.head > websocket.MAX_HEAD then
      self.out, self.queued = {}, 0
      queue(self, http_error(400, "the request is over " .. websocket.MAX_HEAD .. " bytes"))
      self:drop("handshake too long")
    end
    return
  end
  local rest = self.head:sub(head_end + 4)
  local response, ok, why = websocket.handshake(self.head:sub(1, head_end + 3), server.origins)
  self.head = nil
  queue(self, response)
  if not ok then
    self:drop("refused handshake: " .. why)
    return
  end
  self.state = "open"
  self.reader:feed(rest)
  if server.on_open then server.on_open(self) end
end

-- At most 256 frames a poll from one client: the rest waits in its reader (which then reads no more) for the next.
local function on_frames(self, server)
  for _ = 1, 256 do
    if self.state ~= "open" and self.state ~= "closing" then return end
    local kind, payload, reason = self.reader:next()
    if kind == nil then return end
    if kind == false then
      if self.state == "open" then self:close(payload, reason) end
      self:drop(reason)
      return
    elseif kind == "close" then
      if self.state == "open" then
        local code = #payload >= 2 and string.unpack(">I2", payload) or 1000
        -- codes a peer may not send (RFC 6455 section 7.4) are answered as a protocol error
        if code < 1000 or code >= 5000 or code == 1005 or code == 1006 or code == 1015 then code = 1002 end
        self:close(code)
      end
      flush(self)
      self:drop("the client closed")
      return
    elseif kind == "ping" then
      if self.state == "open" then queue(self, websocket.frame(OP.pong, payload)) end
    elseif kind ~= "pong" and self.state == "open" and server.on_message then
      server.on_message(self, payload, kind == "binary")
    end
  end
end

local function pump(self, server)
  flush(self)
  if self.state == "closed" then return end
  local room = self.state == "handshake" and websocket.MAX_HEAD + 1 - #self.head or self.reader:room()
  if room > 0 then
    local data, err = self.conn:receive(room)
    if data and #data > 0 then
      if self.state == "handshake" then
        self.head = self.head .. data
        on_head(self, server)
      else
        self.reader:feed(data)
      end
    elseif err == "closed" then
      self:drop("the client went away")
      return
    end
  end
  if self.state == "open" or self.state == "closing" then on_frames(self, server) end
  if self.state == "handshake" and net.clock() - self.since > websocket.HANDSHAKE_SECONDS then
    self:drop("no handshake within " .. websocket.HANDSHAKE_SECONDS .. " s")
  elseif self.state == "closing" and net.clock() - self.closing_since > websocket.HANDSHAKE_SECONDS then
    self:drop("no close frame in return")
  end
  if self.state ~= "closed" then flush(self) end
end

local Server = {}
Server.__index = Server

--- A WebSocket server listening on `options.bind` (default "127.0.0.1:0"); `nil, message` when the host
--- refuses (no network permission) or the address is taken. Options: `on_open(client)`,
--- `on_message(client, payload, binary)`, `on_close(client, why)`, `max_message` (bytes, ≤ 16 MiB),
--- `max_clients`, `max_queue`, `origins` (see `handshake`).
function websocket.serve(options)
  options = options or {}
  if type(options) ~= "table" then error("websocket.serve: bad argument #1 'options' (table expected)", 2) end
  if type(net) ~= "table" or type(net.tcp_listen) ~= "function" then
    return nil, "websocket.serve: this host has no TCP sockets (net.tcp_listen)"
  end
  local listener, message = net.tcp_listen { bind = options.bind or "127.0.0.1:0", backlog = 16 }
  if not listener then return nil, message end
  local max_message = math.tointeger(options.max_message) or websocket.MAX_MESSAGE
  if max_message < 1 or max_message > 16 * 1024 * 1024 then
    listener:close()
    error("websocket.serve: bad argument #1 'options.max_message' (1 to 16 MiB)", 2)
  end
  return setmetatable({
    listener = listener, clients = {}, on_open = options.on_open, on_message = options.on_message,
    on_close = options.on_close, max_message = max_message, origins = options.origins,
    max_clients = math.tointeger(options.max_clients) or websocket.MAX_CLIENTS,
    max_queue = math.tointeger(options.max_queue) or websocket.MAX_QUEUE,
  }, Server)
end

--- The address the server listens on ("127.0.0.1:65399").
function Server:address() return self.listener:address() end

--- Accepts waiting connections, reads and answers what clients sent, sends what is queued. Never blocks.
function Server:poll()
  if not self.listener then return end
  for _ = 1, 64 do
    local conn = self.listener:accept()
    if not conn then break end
    local open = 0
    for _, c in ipairs(self.clients) do if c.state ~= "closed" then open = open + 1 end end
    if open >= self.max_clients then
      conn:send(http_error(503, "too many clients (" .. self.max_clients .. ")"))
      conn:close()
    else
      self.clients[#self.clients + 1] = setmetatable({
        server = self, conn = conn, state = "handshake", head = "", out = {}, queued = 0,
        reader = websocket.reader(self.max_message), since = net.clock(), address = conn:peer(),
      }, Client)
    end
  end
  local kept = {}
  for _, client in ipairs(self.clients) do
    pump(client, self)
    if client.state ~= "closed" then kept[#kept + 1] = client end
  end
  self.clients = kept
end

--- The clients whose handshake is done.
function Server:open_clients()
  local list = {}
  for _, c in ipairs(self.clients) do if c.state == "open" then list[#list + 1] = c end end
  return list
end

--- Sends `text` to every open client.
function Server:broadcast(text)
  for _, c in ipairs(self:open_clients()) do c:send(text) end
end

--- Closes every client (close code 1001) and the listener.
function Server:close()
  for _, c in ipairs(self.clients) do
    c:close(1001, "the server is going away")
    c:drop("the server closed")
  end
  self.clients = {}
  if self.listener then self.listener:close() end
  self.listener = nil
end

return websocket
