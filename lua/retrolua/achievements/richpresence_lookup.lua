-- retrolua.achievements.richpresence_lookup: a rich presence script's lines
-- (rc_parse_line) and its Lookup tables: entries and ranges parsed, sorted and
-- checked once, then a value's label found by binary search.

local parse = require("retrolua.achievements.parse")

local sub, find = string.sub, string.find
local fail = parse.fail

local Lk = {}

local function is_space(c) return c == " " or c == "\t" or c == "\r" or c == "\n" or c == "\v" or c == "\f" end

-- rc_parse_line: returns the first and last index of the line's content
-- (comments and the line ending removed) and the index of the next line.
local function parse_line(s, i)
  local nl = find(s, "\n", i, true)
  local stop = nl and nl - 1 or #s
  local j = i
  local e = stop
  while j <= stop - 1 do
    if sub(s, j, j + 1) == "//" and (j == i or sub(s, j - 1, j - 1) ~= "\\") then break end
    j = j + 1
  end
  if j > stop - 1 then
    if stop >= i and sub(s, stop, stop) == "\r" then e = stop - 1 end
  else
    e = j - 1
    while e >= i and is_space(sub(s, e, e)) do e = e - 1 end
  end
  return i, e, nl and nl + 1 or #s + 1
end

-- strtoul for a lookup key, with rcheevos' "0x" handling
local function lookup_number(s, i)
  local base = 10
  if sub(s, i, i + 1) == "0x" then i = i + 2; base = 16 end
  local v, e = parse.strtoul(s, i, base)
  return v & 0xFFFFFFFF, e
end

-- entries are collected as written and sorted once the lookup ends:
-- overlapping ranges are an error, adjacent ranges with one label merge
-- (sorting keeps a lookup of n entries at n log n, not n^2)
local function insert_item(lookup, first, last, label, pos)
  if last < first then return end -- a reversed range never matches (rcheevos' tree never finds it)
  local items = lookup.items
  items[#items + 1] = { first = first, last = last, label = label, pos = pos, order = #items + 1 }
end

local function finish_lookup(lookup)
  local items = lookup.items
  table.sort(items, function(a, b)
    if a.first ~= b.first then return a.first < b.first end
    return a.order < b.order
  end)
  local merged = {}
  for _, it in ipairs(items) do
    local prev = merged[#merged]
    if prev and it.first <= prev.last then
      fail(math.max(it.pos, prev.pos), "Duplicated lookup value")
    elseif prev and it.first == prev.last + 1 and it.label == prev.label then
      prev.last = it.last
      prev.pos = math.max(prev.pos, it.pos)
    else
      merged[#merged + 1] = { first = it.first, last = it.last, label = it.label, pos = it.pos }
    end
  end
  lookup.items = merged
end

-- the label of value v (binary search over the sorted ranges)
local function lookup_label(lookup, v)
  local items = lookup.items
  local lo, hi = 1, #items
  while lo <= hi do
    local mid = (lo + hi) // 2
    local it = items[mid]
    if v < it.first then
      hi = mid - 1
    elseif v > it.last then
      lo = mid + 1
    else
      return it.label
    end
  end
  return lookup.default
end

local parse_lookup_entries

local function parse_lookup(s, lookup, i)
  local nexti = parse_lookup_entries(s, lookup, i)
  finish_lookup(lookup)
  return nexti
end

parse_lookup_entries = function(s, lookup, i)
  while i <= #s do
    local b, e, nexti = parse_line(s, i)
    if e - b + 1 < 2 then
      if sub(s, b, b + 1) == "//" then
        i = nexti
      else
        return nexti
      end
    elseif sub(s, b, b + 1) == "*=" then
      lookup.default = sub(s, b + 2, e)
      i = nexti
    else
      local eq = find(s, "=", b, true)
      if not eq or eq > e then fail(b, "Missing value expression") end
      local label = sub(s, eq + 1, e)
      local p = b
      while true do
        local first, last, q
        first, q = lookup_number(s, p)
        if sub(s, q, q) == "-" then
          last, q = lookup_number(s, q + 1)
        else
          last = first
        end
        while sub(s, q, q) == " " do q = q + 1 end
        local c = sub(s, q, q)
        if c == "=" then
          insert_item(lookup, first, last, label, p)
          break
        end
        if c ~= "," then fail(q, "Invalid constant operand") end
        insert_item(lookup, first, last, label, p)
        p = q + 1
        if p > e then break end
      end
      i = nexti
    end
  end
  return i
end

Lk.parse_line, Lk.parse, Lk.label = parse_line, parse_lookup, lookup_label

return Lk
