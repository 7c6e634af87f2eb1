-- Run before a compatibility layer (lua/compat): relative paths start at the script's own folder, as FCEUX and
-- BizHawk resolve them (their scripts load their helpers and data files by names relative to themselves). The
-- host passes (path, folder, source).
-- Those emulators also let a script write beside itself (subtitles, logs, recorded inputs, settings). Here the
-- script's folder is read-only by default, so a script run under a layer gets a folder of its own in the data
-- folder, LuaScriptData/NAME (the one Mesen's emu.getScriptDataFolder names): relative writes land there, and
-- relative reads look there first, then beside the script, so a script reads back what it wrote. A profile that
-- lets the script write its folder (--allow-files, --trust) keeps its files beside it.
local path, folder = ...
local sub, find, match, type = string.sub, string.find, string.match, type
local save_data, paths = emu.save_data, emu.paths

local name = match(path, "([^/]+)$") or "script"
name = name:gsub("%.lua$", "")
local relative_data = "LuaScriptData/" .. name

local function is_relative(p) return type(p) == "string" and p ~= "" and sub(p, 1, 1) ~= "/" end
-- `..` stays with the script's folder: a data path never climbs out of the script's own folder.
local function in_data(p) return is_relative(p) and not find("/" .. p .. "/", "/../", 1, true) end

local function from_folder(p)
  if is_relative(p) then return folder .. "/" .. p end
  return p
end

local dofile_, loadfile_, open, lines, input, output = dofile, loadfile, io.open, io.lines, io.input, io.output
local remove, rename = os.remove, os.rename

local function data_path(p) return paths().data .. "/" .. relative_data .. "/" .. p end

-- Where the profile lets the script write its own folder (--allow-files, --trust), its files stay there, as in
-- those emulators. Asked without touching anything: opening the folder itself to append fails either way, with
-- an errno when the sandbox let the call through, with only a message when it refused.
local _, _, errno = open(folder, "a")
local own_folder = errno ~= nil

-- The folder a relative write goes to, created on first use (save_data creates the folders of a name).
local made = {}
local function for_writing(p)
  if own_folder or not in_data(p) then return from_folder(p) end
  local dir = match(p, "^(.*)/[^/]*$") or ""
  if not made[dir] then
    local marker = relative_data .. "/" .. (dir ~= "" and dir .. "/" or "") .. ".retrolua-folder"
    if save_data(marker, "") then
      remove(paths().data .. "/" .. marker)
      made[dir] = true
    end
  end
  return data_path(p)
end

-- A relative read: the script's data folder when the file is there, else beside the script.
local function for_reading(p)
  if not own_folder and in_data(p) then
    local target = data_path(p)
    local file = open(target, "r")
    if file then
      file:close()
      return target
    end
  end
  return from_folder(p)
end

-- For the layers' own functions that take paths (FCEUX's movie, state and screenshot files): the same rules.
package.loaded["compat.script_paths"] = { for_reading = for_reading, for_writing = for_writing }

local function writes(mode) return type(mode) == "string" and find(mode, "[wa+]") ~= nil end

dofile = function(p) return dofile_(for_reading(p)) end
loadfile = function(p, ...) return loadfile_(for_reading(p), ...) end
io.open = function(p, mode, ...)
  if writes(mode) then return open(for_writing(p), mode, ...) end
  return open(for_reading(p), mode, ...)
end
io.lines = function(p, ...) return lines(for_reading(p), ...) end
io.input = function(file) return input(type(file) == "string" and for_reading(file) or file) end
io.output = function(file) return output(type(file) == "string" and for_writing(file) or file) end
os.remove = function(p) return remove((not own_folder and in_data(p)) and data_path(p) or from_folder(p)) end
os.rename = function(from, to)
  return rename(for_reading(from), for_writing(to))
end
