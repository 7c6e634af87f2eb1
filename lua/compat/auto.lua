-- --compat auto: reads the script and loads the layer its globals point to, saying which and why.
-- The host passes (path, folder, source). Marks are names only one emulator's API has.
local path, folder, source = ...
local marks = {
  { "fceux", { "FCEU%.", "emu%.registerbefore", "emu%.registerafter", "memory%.readbyterange", "gui%.drawbox",
               "savestate%.registersave", "taseditor%.", "memory%.registerexec", "joypad%.getimmediate" } },
  { "bizhawk", { "mainmemory%.", "event%.onframe", "event%.onexit", "gui%.drawBox", "gui%.drawText",
                 "gui%.pixelText", "client%.", "memorysavestate%.", "gameinfo%.", "memory%.usememorydomain",
                 "bizstring%.", "tastudio%.", "console%.writeline", "event%.oninputpoll", "gui%.drawRectangle",
                 "gui%.drawString", "emu%.getsystemid", "forms%.newform" } },
  { "mesen", { "emu%.addEventCallback", "emu%.eventType", "emu%.memType", "emu%.drawRectangle", "emu%.drawString",
               "emu%.getState", "emu%.addMemoryCallback", "emu%.displayMessage" } },
  { "mgba", { "callbacks:add", "console:log", "emu:read8", "emu:write8", "emu:read16", "canvas:", "console:createBuffer",
              "emu:read32", "emu:getKey", "emu:addKey", "emu:currentFrame" } },
}
-- Names several of those emulators share (and Retrolua's API does not have): counted only when no mark above is
-- found, so a script that uses nothing but memory.readbyte and gui.text still gets a layer (FCEUX's, whose names
-- the others mostly copied).
local weak_marks = {
  { "fceux", { "memory%.readbyte", "memory%.writebyte", "memory%.readword", "memory%.getregister",
               "memory%.register", "gui%.box", "gui%.drawtext", "joypad%.read", "joypad%.write", "input%.get%(",
               "emu%.softreset", "emu%.speedmode", "savestate%.object", "gui%.register", "movie%.framecount" } },
  { "mesen", { "emu%.read%(", "emu%.write%(", "emu%.log%(", "emu%.getInput", "emu%.setInput" } },
  { "bizhawk", { "movie%.isloaded", "movie%.getheader", "movie%.getinput", "movie%.getfps",
                 "emu%.totalexecutedcycles", "emu%.yield", "emu%.getregister%(" } },
}
local function pick(list)
  local best, best_count, found = nil, 0, nil
  for _, entry in ipairs(list) do
    local name, patterns = entry[1], entry[2]
    local seen = {}
    for _, pattern in ipairs(patterns) do
      if source:find(pattern) then seen[#seen + 1] = (pattern:gsub("%%", ""):gsub("%($", "")) end
    end
    if #seen > best_count then best, best_count, found = name, #seen, seen end
  end
  return best, found
end
local best, found = pick(marks)
if not best then best, found = pick(weak_marks) end
local script = path:match("[^/]*$")
if not best then
  console.write("compat auto: " .. script .. " uses no other emulator's names; running it with Retrolua's API", "err")
  return
end
console.write(("compat auto: running %s with the %s layer (it uses %s)"):format(script, best, table.concat(found, ", ")), "err")
local layer = package.searchpath("compat." .. best, package.path)
if not layer then error("compat auto: lua/compat/" .. best .. ".lua is not installed", 0) end
assert(loadfile(layer))(path, folder, source)
