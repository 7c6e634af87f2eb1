-- The per-system matrix's checks inside one run (SystemMatrixTests writes `P`, the cell's
-- parameters, above this file): a fixed input pattern for P.frames frames, then a savestate round
-- trip, then `bus` reads against the direct domains. Each check reports through emu.result.
-- luacheck: globals P

local function pad(i)
  return {
    right = i % 3 == 0, left = i % 7 == 3, up = i % 5 == 1, down = i % 11 == 4,
    a = i % 4 == 2, b = i % 6 == 5, start = i % 40 == 20,
  }
end

local function advance(from, count)
  for i = from, from + count - 1 do
    joypad.set(1, pad(i))
    emu.frameadvance()
  end
end

-- SHA-1 of every domain but the whole `bus` (per-descriptor domains included), in a fixed order.
local function ram_hash()
  local parts = {}
  for _, d in ipairs(memory.domains()) do
    if d.name ~= "bus" then
      local ok, hash = pcall(memory.hash, d.name)
      parts[#parts + 1] = d.name .. "=" .. (ok and hash or "error")
    end
  end
  return table.concat(parts, " ")
end

local function file_bytes(path)
  local file = assert(io.open(path, "rb"))
  local bytes = file:read("a")
  file:close()
  return bytes
end

advance(0, P.frames)
if P.drive_only then return end  -- a movie's recording: the input alone
emu.result("ram", ram_hash())

if P.pattern then
  local ok, bytes = pcall(memory.read_bytes, P.pattern.offset, 16, P.pattern.domain)
  emu.result("pattern", ok and bytes or ("error: " .. tostring(bytes)))
end

-- States: save, run 20 frames, load, run the same 20 frames: the same RAM and the same picture.
local data = emu.paths().data
local state = savestate.create()
advance(P.frames, 20)
local first_ram = ram_hash()
assert(gui.screenshot(data .. "/first.png"))
local loaded, why = state:load()
if not loaded then
  emu.result("states", "load failed: " .. tostring(why))
else
  advance(P.frames, 20)
  assert(gui.screenshot(data .. "/second.png"))
  local same_ram = ram_hash() == first_ram
  local same_picture = file_bytes(data .. "/first.png") == file_bytes(data .. "/second.png")
  emu.result("states", (same_ram and same_picture) and "ok"
    or ("differs:" .. (same_ram and "" or " ram") .. (same_picture and "" or " picture")))
end

-- Bus: each address (and its mirrors) reads what the direct domain holds there.
local function read(address, domain)
  local ok, bytes = pcall(memory.read_bytes, address, 16, domain)
  if not ok then return nil, tostring(bytes) end
  return bytes
end

if P.bus then
  local verdict = "ok"
  local direct, problem = read(P.bus.offset, P.bus.domain)
  if P.bus.swap16 and direct then  -- the core keeps 16-bit words in host (little-endian) order
    direct = direct:gsub("(.)(.)", "%2%1")
  end
  for _, address in ipairs(P.bus.addresses) do
    local seen, error = read(address, "bus")
    if not direct then
      verdict = "direct domain: " .. problem
    elseif not seen then
      verdict = string.format("bus $%X: %s", address, error)
    elseif seen ~= direct then
      verdict = string.format("bus $%X differs from %s+$%X", address, P.bus.domain, P.bus.offset)
    end
    if verdict ~= "ok" then break end
  end
  emu.result("bus", verdict)
end

emu.exit(0)
