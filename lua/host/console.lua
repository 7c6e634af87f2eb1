-- Console prelude, run after the security prelude with no arguments: print and console.* are Lua as they need tostring (metamethods).
local write, tostring, select, concat = console.write, tostring, select, table.concat
local function join(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  return concat(parts, "\t")
end
function print(...) write(join(...)) end
console.log = print
function console.warn(...) write("warning: " .. join(...), "err") end
function console.error(...) write("error: " .. join(...), "err") end
