-- --compat auto: reads the script and loads the layer its globals point to, saying which and why.
-- The host passes (path, folder, source, options); the layer it picks gets the same four. Marks are names only one
-- emulator's API has; they are looked for in the script's code (not its comments) and in the files it loads with
-- dofile, loadfile or require by a literal name.
local path, folder, source, options = ...
local compat = require("compat.common")
local marks = compat.marks

-- The script's code and that of the files it loads (found beside it, as the layers resolve them), at most 32
-- files and 4 MiB in all.
local open = io.open
local function read(file)
  local handle = open(file, "rb")
  if not handle then return nil end
  local text = handle:read(4 << 20)
  handle:close()
  return text
end
local code, seen_files, budget = {}, {}, 4 << 20
local function scan(text, depth)
  text = compat.code_only(text)
  code[#code + 1] = text
  budget = budget - #text
  if depth >= 4 then return end
  local loads = {}
  for callee, name in text:gmatch("([%a_][%w_]*)%s*%(?%s*[\"']([^\"'\n]+)[\"']") do
    if callee == "dofile" or callee == "loadfile" then
      loads[#loads + 1] = name:sub(1, 1) == "/" and name or folder .. "/" .. name
    elseif callee == "require" then
      loads[#loads + 1] = folder .. "/" .. name:gsub("%.", "/") .. ".lua"
    end
  end
  for _, file in ipairs(loads) do
    if not seen_files[file] and budget > 0 and #code < 32 then
      seen_files[file] = true
      local loaded = read(file)
      if loaded then scan(loaded, depth + 1) end
    end
  end
end
scan(source, 0)
local all = table.concat(code, "\n")

local function pick(list)
  local best, best_count, found = nil, 0, nil
  for _, entry in ipairs(list) do
    local name, patterns = entry[1], entry[2]
    local seen, shown = {}, {}
    for _, pattern in ipairs(patterns) do
      local hit = all:match(pattern)
      if hit then
        hit = hit:gsub("%($", "")
        if not shown[hit] then
          shown[hit] = true
          seen[#seen + 1] = hit
        end
      end
    end
    if #seen > best_count then best, best_count, found = name, #seen, seen end
  end
  return best, found
end
local best, found = pick(marks.strong)
if not best then best, found = pick(marks.weak) end
local script = path:match("[^/]*$")
if not best then
  console.write("compat auto: " .. script .. " uses no other emulator's names; running it with Retrolua's API", "err")
  return
end
console.write(("compat auto: running %s with the %s layer (it uses %s)"):format(script, best, table.concat(found, ", ")), "err")
local layer = package.searchpath("compat." .. best, package.path)
if not layer then error("compat auto: lua/compat/" .. best .. ".lua is not installed", 0) end
assert(loadfile(layer))(path, folder, source, options)
