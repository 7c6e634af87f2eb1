-- Run before a compatibility layer (lua/compat): relative paths given to dofile, loadfile, io.open and
-- io.lines start at the script's own folder, as FCEUX and BizHawk resolve them (their scripts load
-- their helpers and data files by names relative to themselves). The host passes (path, folder, source).
local _, folder = ...
local sub = string.sub

local function from_folder(path)
  if type(path) == "string" and path ~= "" and sub(path, 1, 1) ~= "/" then return folder .. "/" .. path end
  return path
end

local dofile_, loadfile_, open, lines = dofile, loadfile, io.open, io.lines
dofile = function(path) return dofile_(from_folder(path)) end
loadfile = function(path, ...) return loadfile_(from_folder(path), ...) end
io.open = function(path, ...) return open(from_folder(path), ...) end
io.lines = function(path, ...) return lines(from_folder(path), ...) end
