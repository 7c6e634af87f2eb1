-- Fuzzes Retrolua's LuaSocket (lua/retrolua/luasocket/) under stock lua5.4 over a fake `net`: a peer's byte
-- stream (CRs, LFs, NULs, any byte) arrives in random pieces, and random receive patterns, counts and prefixes
-- (often the last partial result, as scripts pass it back) read it with settimeout(0); random sends with
-- random ranges meet a send buffer that takes a random part. Every result — values, their count, the partial
-- results — must equal a small model of LuaSocket's semantics, and no byte may be lost, doubled or reordered.
--   lua5.4 Fuzz/lua/luasocket_fuzz.lua [SECONDS] [SEED]
-- Exits 1 with the seed, the stream and the calls so far.

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
local folder = here .. "/../../lua/retrolua/luasocket/"

local seconds = tonumber(arg[1]) or 10
local seed = tonumber(arg[2]) or os.time()
math.randomseed(seed)

-- The fake host: one connection whose incoming pieces the fuzzer releases, and whose send buffer takes a
-- random part of what it is given.
local incoming, ended, taken = {}, false, {}
local conn = {}
conn.__index = conn
function conn.state() return "open" end
function conn.receive()
  if #incoming > 0 then return table.remove(incoming, 1) end
  if ended then return nil, "closed" end
  return nil, "timeout"
end
function conn.wait() return #incoming > 0 or ended end
function conn.send(_, data)
  local n = math.random(0, #data)
  taken[#taken + 1] = data:sub(1, n)
  return n
end
function conn.pending() return 0 end
function conn.close() end
function conn.address() return "127.0.0.1:5000" end
function conn.peer() return "127.0.0.1:6000" end

local net = {
  clock = os.clock,
  select = function() return {} end,
  tcp_connect = function() return setmetatable({}, conn) end,
  tcp_listen = function() return nil, "not in this fuzzer" end,
  udp = function() return nil, "not in this fuzzer" end,
}

local function part(name, ...)
  return assert(loadfile(folder .. name .. ".lua", "t"))(...)
end
local socket = part("init", net, part)

-- The model: `available` holds the bytes released and not yet taken; `over` once the peer closed and every
-- piece was released.
local available, over = "", false

local function model_receive(pattern, prefix)
  prefix = prefix or ""
  local kind, count = "line", nil
  if type(pattern) == "number" then
    kind, count = "count", pattern
  elseif pattern == "*a" or pattern == "a" then
    kind = "all"
  end
  local function fail(partial)
    available = ""
    return nil, over and "closed" or "timeout", prefix .. partial
  end
  if kind == "line" then
    local stop = available:find("\n", 1, true)
    if stop then
      local line = available:sub(1, stop - 1):gsub("\r", "")
      available = available:sub(stop + 1)
      return prefix .. line, nil, nil
    end
    return fail((available:gsub("\r", "")))
  elseif kind == "count" then
    if #prefix > 0 then
      if count <= #prefix then return prefix, nil, nil end
      count = count - #prefix
    end
    if #available > 0 and #available >= count then
      local got = available:sub(1, count)
      available = available:sub(count + 1)
      return prefix .. got, nil, nil
    end
    return fail(available)
  end
  if over and #available > 0 then
    local got = available
    available = ""
    return prefix .. got, nil, nil
  end
  return fail(available)
end

local function stream()
  local bytes = { "a", "b", "\r", "\n", "\0", "\255", "line\r\n", "\n\n" }
  local out = {}
  for i = 1, math.random(0, 400) do
    out[i] = math.random(4) == 1 and string.char(math.random(0, 255)) or bytes[math.random(#bytes)]
  end
  return table.concat(out)
end

local function pieces(text)
  local out, at = {}, 1
  while at <= #text do
    local n = math.random(1, 64)
    out[#out + 1] = text:sub(at, at + n - 1)
    at = at + n
  end
  return out
end

local function show(...)
  local t = table.pack(...)
  for i = 1, t.n do t[i] = type(t[i]) == "string" and string.format("%q", t[i]) or tostring(t[i]) end
  return t.n .. ": " .. table.concat(t, ", ")
end

local deadline = os.clock() + seconds
local runs = 0
while os.clock() < deadline do
  runs = runs + 1
  local text = stream()
  local queue = pieces(text)
  local closes = math.random(2) == 1
  incoming, ended, taken, available, over = {}, false, {}, "", false
  local client = socket.tcp()
  client:settimeout(0)
  assert(client:connect("127.0.0.1", 1) == 1.0)
  local log, partial = {}, nil
  for _ = 1, 200 do
    for _ = 1, math.random(0, 3) do
      local piece = table.remove(queue, 1)
      if piece then
        incoming[#incoming + 1] = piece
        available = available .. piece
      end
    end
    if #queue == 0 and closes then
      ended, over = true, true
    end
    local patterns = { nil, "*l", "l", "*a", "a", 0, 1, 2, 5, 17, 64 }
    local pattern = patterns[math.random(#patterns)]
    local prefix = math.random(3) == 1 and partial or (math.random(4) == 1 and "pre" or nil)
    local want = table.pack(model_receive(pattern, prefix))
    local got = table.pack(client:receive(pattern, prefix))
    local wanted, result = show(table.unpack(want, 1, want.n)), show(table.unpack(got, 1, got.n))
    log[#log + 1] = string.format("receive(%s, %s) -> %s", tostring(pattern), tostring(prefix), result)
    if wanted ~= result then
      io.stderr:write(string.format("luasocket fuzz: seed %d run %d: stream %q\n%s\nwanted %s\n", seed, runs, text,
        table.concat(log, "\n"), wanted))
      os.exit(1)
    end
    partial = got[3]
    -- A send of a random range: the return value is the last index sent, and the buffer got exactly those bytes.
    local data = stream()
    local i, j = math.random(-5, #data + 2), math.random(-5, #data + 2)
    taken = {}
    local last, err, failed_at = client:send(data, i, j)
    local first = i < 0 and math.max(#data + i + 1, 1) or math.max(i, 1)
    local stop = j < 0 and #data + j + 1 or math.min(j, #data)
    local sent = table.concat(taken)
    local index = last or failed_at
    if data:sub(first, index) ~= sent or (first <= stop and last == nil and err ~= "timeout")
      or (last ~= nil and (first <= stop and index ~= stop or first > stop and index ~= first - 1)) then
      io.stderr:write(string.format("luasocket fuzz: seed %d run %d: send(%q, %d, %d) -> %s, buffer got %q\n", seed,
        runs, data, i, j, show(last, err, failed_at), sent))
      os.exit(1)
    end
    local drained = #queue == 0 and #incoming == 0 and available == ""
    if drained and (over or not closes) and math.random(4) == 1 then break end
  end
end
print(string.format("luasocket fuzz: %d streams in %d s, seed %d: no difference from the model", runs, seconds, seed))
