-- A line server in mGBA's style (as mGBA's own socket examples): binds the first free port from 47600 on,
-- accepts clients in the server's "received" callback and answers each line in theirs:
--   "READ ADDRESS" -> "BYTE n" (the bus byte), "FRAME" -> "FRAME n", "BYE" -> "BYE" and closes, else "ERR line".
local server, port
local clients, served = {}, 0

local function answer(sock, line)
  local address = line:match("^READ (%d+)$")
  if address then return "BYTE " .. emu:read8(tonumber(address)) end
  if line == "FRAME" then return "FRAME " .. emu:currentFrame() end
  if line == "BYE" then return "BYE" end
  return "ERR " .. line
end

local function received(id)
  local sock = clients[id]
  while sock do
    local data, err = sock:receive(1024)
    if not data then
      if err ~= socket.ERRORS.AGAIN then
        console:log("client " .. id .. " ended: " .. tostring(err))
        sock:close()
        clients[id] = nil
      end
      return
    end
    sock._buffer = (sock._buffer or "") .. data
    for line in sock._buffer:gmatch("([^\n]*)\n") do
      local reply = answer(sock, line)
      sock:send(reply .. "\n")
      if reply == "BYE" then
        served = served + 1
        console:log("served " .. served)
        sock:close()
        clients[id] = nil
        return
      end
    end
    sock._buffer = sock._buffer:match("[^\n]*$")
  end
end

local next_id = 1
local function accept()
  local sock, err = server:accept()
  if err then
    console:log("accept: " .. err)
    return
  end
  local id = next_id
  next_id = id + 1
  clients[id] = sock
  sock:add("received", function() received(id) end)
  sock:add("error", function(_, problem) console:log("client " .. id .. " error: " .. tostring(problem)) end)
end

port = 47600
while not server do
  local err
  server, err = socket.bind(nil, port)
  if err == socket.ERRORS.ADDRESS_IN_USE then
    port = port + 1
  elseif err then
    console:log("bind failed: " .. err)
    return
  end
end
local ok, err = server:listen()
if not ok then console:log("listen failed: " .. tostring(err)) return end
server:add("received", accept)
console:log("listening " .. port)
