-- Run through a layer (`--script LAYER:scripts/compat-dump.lua`) by scripts/compat-table: prints the
-- layer's support table, one tab-separated line per function (layer, name, status, note).
local compat = require("compat.common")
local write = io.write
for layer, list in pairs(compat.support) do
  for _, entry in ipairs(list) do
    write(layer, "\t", entry.name, "\t", entry.status, "\t", (tostring(entry.note or ""):gsub("[\t\n]", " ")), "\n")
  end
end
emu.exit(0)
