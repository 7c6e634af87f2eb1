-- Security prelude, run first in every script's state: the host passes (trust, allow_files, package_path,
-- allow_path) from its options. It runs before any script code, so no script holds on to what it replaces.
-- The profiles (docs/guides/security.md, "Profiles"):
--   default:       no process spawning, no native modules (package.loadlib gives only LuaSocket's opener,
--                  lua/retrolua/luasocket/), no binary chunks on any path (load, loadfile,
--                  dofile, require, package.searchers), debug only as traceback and getinfo (without
--                  functions), no os.exit (use emu.exit); files: read the script's folder and lua/, read and
--                  write the data folder (allow_path decides, the same check the bindings with paths use).
--   allow_files:   the default, with every file the user may open.
--   trust:         everything.
-- The replacements are Lua closures holding the real functions as upvalues; that is safe only because no
-- script can read upvalues (debug.getupvalue and getinfo's func are gone) — keep it so.
local trust, allow_files, package_path, allow_path = ...
package.path = package_path
package.cpath = ""

-- LuaSocket's API (lua/retrolua/luasocket/) over the `net` module as it is now, before any script can replace
-- it: require "socket" and "socket.core" find it after the script's own modules, and
-- package.loadlib(ANY, "luaopen_socket_core") — how connectors load a bundled LuaSocket binary — returns its
-- opener. One table per state, loaded on first use from the last folder of package_path (lua/), found now:
-- nothing a script may have replaced by then takes part in choosing the files.
local host_net, native_loadlib, real_loadfile, raise, to_text = net, package.loadlib, loadfile, error, tostring
local luasocket_folder
for template in string.gmatch(package_path, "[^;]+") do
  luasocket_folder = (string.match(template, "^(.*/)%?%.lua$") or luasocket_folder)
end
luasocket_folder = luasocket_folder and luasocket_folder .. "retrolua/luasocket/"
local luasocket
local function luasocket_part(name, ...)
  local chunk, problem = nil, "no lua/ folder"
  if luasocket_folder then chunk, problem = real_loadfile(luasocket_folder .. name .. ".lua", "t") end
  if not chunk then raise("socket: Retrolua's LuaSocket cannot be loaded: " .. to_text(problem), 0) end
  return chunk(...)
end
local function open_luasocket()
  if luasocket == nil then luasocket = luasocket_part("init", host_net, luasocket_part) end
  return luasocket
end
local function luasocket_searcher(name)
  if name == "socket" or name == "socket.core" then return open_luasocket, ":luasocket" end
  return nil
end
local string_format, value_type = string.format, type
package.loadlib = function(path, symbol)
  if value_type(path) ~= "string" then
    error(string_format("bad argument #1 to 'loadlib' (string expected, got %s)", value_type(path)), 2)
  end
  if value_type(symbol) ~= "string" then
    error(string_format("bad argument #2 to 'loadlib' (string expected, got %s)", value_type(symbol)), 2)
  end
  if symbol == "luaopen_socket_core" then return open_luasocket end
  if trust then return native_loadlib(path, symbol) end
  return nil, "package.loadlib: native code needs --trust; without it only \"luaopen_socket_core\" loads "
    .. "(Retrolua's LuaSocket, over its own sockets; see docs/guides/security.md)", "open"
end
if trust then
  package.searchers[#package.searchers + 1] = luasocket_searcher
  return
end

local type, error, select, tostring = type, error, select, tostring
local find, gsub, gmatch, format = string.find, string.gsub, string.gmatch, string.format
local concat, remove_item = table.concat, table.remove
local running = coroutine.running
local base_load, base_loadfile = load, loadfile
local open, lines, input, output = io.open, io.lines, io.input, io.output
local remove, rename = os.remove, os.rename
local getinfo, traceback = debug.getinfo, debug.traceback

os.execute, io.popen = nil, nil
os.exit = function() error("os.exit is not available to scripts; use emu.exit(code)", 2) end

-- nil when `path` may be opened by function `name`, else the message (naming the function and the path).
local function refusal(name, path, write)
  if allow_files then return nil end
  if type(path) ~= "string" then
    return format("%s: bad argument 'path' (string expected, got %s)", name, type(path))
  end
  local ok, message = allow_path(path, write)
  if ok then return nil end
  return name .. ": " .. tostring(message)
end

local function guard(name, path, write)
  local message = refusal(name, path, write)
  if message then error(message, 3) end
end

-- Bytecode is never loaded: Lua 5.4 does not verify it, and a crafted chunk corrupts the host.
-- env travels in `...` so that it is passed only when given: an explicit nil env leaves a chunk no globals.
load = function(chunk, name, _, ...) return base_load(chunk, name, "t", ...) end
loadfile = function(path, _, ...)
  if path == nil and not allow_files then return nil, "loadfile: reading stdin is not allowed (use a file)" end
  if path ~= nil then
    local message = refusal("loadfile", path, false)
    if message then return nil, message end
  end
  return base_loadfile(path, "t", ...)
end
dofile = function(path)
  if path == nil and not allow_files then error("dofile: reading stdin is not allowed (use a file)", 2) end
  local chunk, message = loadfile(path)
  if not chunk then error(message, 2) end
  return chunk()
end

if not allow_files then
  io.open = function(path, mode)
    if mode ~= nil and type(mode) ~= "string" then
      error(format("io.open: bad argument #2 'mode' (string expected, got %s)", type(mode)), 2)
    end
    local message = refusal("io.open", path, mode ~= nil and find(mode, "[wa+]") ~= nil)
    if message then return nil, message end
    return open(path, mode)
  end
  io.lines = function(path, ...)
    if path ~= nil then guard("io.lines", path, false) end
    return lines(path, ...)
  end
  io.input = function(file)
    if type(file) == "string" then guard("io.input", file, false) end
    return input(file)
  end
  io.output = function(file)
    if type(file) == "string" then guard("io.output", file, true) end
    return output(file)
  end
  -- A refused path is a failure like any other of these two: nil and the message (a wrong type still raises).
  os.remove = function(path)
    if type(path) ~= "string" then guard("os.remove", path, true) end
    local message = refusal("os.remove", path, true)
    if message then return nil, message end
    return remove(path)
  end
  os.rename = function(from, to)
    if type(from) ~= "string" then guard("os.rename", from, true) end
    if type(to) ~= "string" then guard("os.rename", to, true) end
    local message = refusal("os.rename", from, true) or refusal("os.rename", to, true)
    if message then return nil, message end
    return rename(from, to)
  end
  os.tmpname = nil  -- it creates a file in /tmp
end

-- require: the preload searcher and a Lua-file searcher that loads text only and opens only files this
-- script may read; package.searchpath likewise reports only such files (no existence oracle elsewhere).
local function searchpath(name, path, separator, replacement)
  if type(name) ~= "string" then error("package.searchpath: bad argument #1 'name' (string expected)", 2) end
  if type(path) ~= "string" then error("package.searchpath: bad argument #2 'path' (string expected)", 2) end
  separator, replacement = separator or ".", replacement or "/"
  if separator ~= "" then name = gsub(name, gsub(separator, "%W", "%%%0"), function() return replacement end) end
  local tried = {}
  for template in gmatch(path, "[^;]+") do
    local file = gsub(template, "%?", function() return name end)
    local message = refusal("require", file, false)
    if message then
      tried[#tried + 1] = "\n\t" .. message
    else
      local handle = open(file, "r")
      if handle then
        handle:close()
        return file
      end
      tried[#tried + 1] = "\n\tno file '" .. file .. "'"
    end
  end
  return nil, concat(tried)
end
package.searchpath = searchpath
package.searchers[2] = function(name)
  if type(package.path) ~= "string" then error("'package.path' must be a string", 2) end
  local file, message = searchpath(name, package.path)
  if not file then return message end
  local chunk, problem = base_loadfile(file, "t")
  if not chunk then error(format("error loading module '%s' from file '%s':\n\t%s", name, file, problem), 2) end
  return chunk, file
end
for i = #package.searchers, 3, -1 do remove_item(package.searchers, i) end
package.searchers[3] = luasocket_searcher

-- debug: traceback, and getinfo without the function it describes (a raw function calling back into a
-- script would otherwise hand itself out). require("debug") and package.loaded.debug give the same table.
local function safe_getinfo(...)
  local first = ...
  local info
  if type(first) == "number" then
    info = getinfo(first + 1, select(2, ...))  -- levels count from this wrapper's caller
  elseif type(first) == "thread" and first == running() and type(select(2, ...)) == "number" then
    info = getinfo(first, select(2, ...) + 1, select(3, ...))
  else
    info = getinfo(...)
  end
  if type(info) == "table" then info.func = nil end
  return info
end
debug = { traceback = traceback, getinfo = safe_getinfo }
package.loaded.debug = debug
