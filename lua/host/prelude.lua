-- Security prelude, run first in every script's state: the host passes (trust, sandbox, package_path, allow_path) from its options.
-- It runs before any script code, so no script holds on to what it removes.
-- Without trust: no process spawning, no native code, no bytecode, no os.exit (use emu.exit).
-- With sandbox: files only under the script's folder and the data folder, and no debug library
-- (its upvalue access would reach the unwrapped functions). allow_path(path, write) → true | nil, message.
local trust, sandbox, package_path, allow_path = ...
package.path = package_path
package.cpath = ""
if not trust then
  os.execute, io.popen, package.loadlib = nil, nil, nil
  os.exit = function() error("os.exit is not available to scripts; use emu.exit(code)", 2) end
  for i = #package.searchers, 3, -1 do table.remove(package.searchers, i) end
  local base_load, base_loadfile = load, loadfile
  -- env travels in `...` so that it is passed only when given: an explicit nil env leaves a chunk no globals.
  load = function(chunk, name, _, ...) return base_load(chunk, name, "t", ...) end
  loadfile = function(path, _, ...) return base_loadfile(path, "t", ...) end
  dofile = function(path)
    local chunk, message = loadfile(path)
    if not chunk then error(message, 2) end
    return chunk()
  end
end
if sandbox then
  local function guard(path, write, level)
    local ok, message = allow_path(path, write)
    if not ok then error(message, level + 1) end
  end
  local open, lines, input, output = io.open, io.lines, io.input, io.output
  local remove, rename, base_loadfile = os.remove, os.rename, loadfile
  io.open = function(path, mode)
    local ok, message = allow_path(path, mode ~= nil and mode:find("[wa+]") ~= nil)
    if not ok then return nil, message end
    return open(path, mode)
  end
  io.lines = function(path, ...)
    if path ~= nil then guard(path, false, 2) end
    return lines(path, ...)
  end
  io.input = function(file)
    if type(file) == "string" then guard(file, false, 2) end
    return input(file)
  end
  io.output = function(file)
    if type(file) == "string" then guard(file, true, 2) end
    return output(file)
  end
  os.remove = function(path) guard(path, true, 2) return remove(path) end
  os.rename = function(from, to) guard(from, true, 2) guard(to, true, 2) return rename(from, to) end
  os.tmpname = nil
  loadfile = function(path, ...)
    if path == nil then return nil, "loadfile: reading stdin is not allowed in the sandbox" end
    local ok, message = allow_path(path, false)
    if not ok then return nil, message end
    return base_loadfile(path, ...)
  end
  dofile = function(path)
    local chunk, message = loadfile(path)
    if not chunk then error(message, 2) end
    return chunk()
  end
  debug = { traceback = debug.traceback }
end
