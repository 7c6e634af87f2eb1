-- retrolua.achievements.parse_units: whole definitions parsed with
-- retrolua.achievements.parse's conditions: a trigger (core and alt groups),
-- a value (measured condition sets, or the legacy "0xH1234*2_…$…" format) and
-- a leaderboard's five parts.  Errors are parse's (see parse.protect).

local P = require("retrolua.achievements.parse")

local sub, format = string.sub, string.format
local fail = P.fail

local function ch(s, i) return sub(s, i, i) end
local function is_digit(c) return c ~= "" and c >= "0" and c <= "9" end

local U = {}

--- Parser state for one unit (trigger or value) whose nodes go into `mem`.
function U.new_state(s, mem, is_value)
  return {
    s = s, mem = mem, is_value = is_value or false, nhits = 0,
    measured_target = 0, has_required_hits = false, as_percent = false,
  }
end

--- rc_parse_trigger_internal: core group then alt groups separated by 'S'.
-- Returns a trigger unit and the next index.
function U.parse_trigger(ps, i)
  local s = ps.s
  ps.measured_target, ps.has_required_hits, ps.as_percent = 0, false, false
  local unit = { kind = "trigger", alts = {} }
  local c = ch(s, i)
  if c ~= "S" and c ~= "s" then
    unit.core, i = P.parse_condset(ps, i)
  end
  while ch(s, i) == "S" or ch(s, i) == "s" do
    local set
    set, i = P.parse_condset(ps, i + 1)
    unit.alts[#unit.alts + 1] = set
  end
  unit.measured_target = ps.measured_target
  unit.as_percent = ps.as_percent
  unit.has_required_hits = ps.has_required_hits
  unit.nhits = ps.nhits
  return unit, i
end

local function parse_cond_value(ps, i)
  local s = ps.s
  local sets = {}
  while true do
    ps.measured_target = 0
    local set
    set, i = P.parse_condset(ps, i)
    sets[#sets + 1] = set
    local c = ch(s, i)
    if c == "S" or c == "s" then fail(i, "Invalid flag in value expression") end
    if ps.measured_target == 0 then fail(i, "Missing measured flag in value expression") end
    if c ~= "$" then break end
    i = i + 1
  end
  return sets, i
end

-- the legacy value format: "0xH1234*2_0xH2345*-1$0xX10*0.5" (sum of
-- products, '$' = maximum of); converted into AddSource/SubSource/Measured.
local function parse_legacy_value(ps, i)
  local s = ps.s
  local sets = {}
  while true do
    local set = { conds = {} }
    ps.as_parent, ps.as_oper, ps.ind_parent, ps.remember = nil, nil, nil, nil
    local mem = ps.mem
    mem.groups = mem.groups + 1
    if mem.groups > P.MAX_GROUPS then fail(i, format("More than %d groups (the limit)", P.MAX_GROUPS)) end
    local last
    while true do
      mem.conditions = mem.conditions + 1
      if mem.conditions > P.MAX_CONDITIONS then
        fail(i, format("More than %d conditions (the limit)", P.MAX_CONDITIONS))
      end
      local flag, buf, partpos = "A", {}, i
      while true do
        local c = ch(s, i)
        if c == "_" then break end
        if c == "$" or c == "" or c == ":" or c == ")" then
          if flag == "A" then flag = "M" end
          break
        end
        if c == "*" then
          buf[#buf + 1] = "*"
          local j = i + 1
          if ch(s, j) == "-" then
            flag = "B"
            i = i + 1
            j = j + 1
          elseif ch(s, j) == "+" then
            j = j + 1
          end
          while is_digit(ch(s, j)) do j = j + 1 end
          if ch(s, j) == "." then buf[#buf + 1] = "f" end
        else
          buf[#buf + 1] = c
        end
        i = i + 1
      end
      local text = flag .. ":" .. table.concat(buf)
      local sub_ps = setmetatable({ s = text }, { __index = ps, __newindex = ps })
      local ok, cond, e = pcall(P.parse_condition, sub_ps, 1)
      if not ok then
        if P.is_parse_error(cond) then fail(partpos, cond.msg) end
        error(cond, 0)
      end
      if e <= #text then fail(partpos, "Invalid comparison") end
      cond.pos = partpos
      if cond.flag == "M" and not P.modifying(cond.oper) then cond.oper = nil end
      P.update_parse_state(ps, cond)
      set.conds[#set.conds + 1] = cond
      last = cond
      if ch(s, i) ~= "_" then break end
      i = i + 1
    end
    if last.flag ~= "M" then
      local sub_ps = setmetatable({ s = "M:0" }, { __index = ps, __newindex = ps })
      local cond = P.parse_condition(sub_ps, 1)
      cond.pos = i
      P.update_parse_state(ps, cond)
      set.conds[#set.conds + 1] = cond
    end
    for _, cond in ipairs(set.conds) do
      cond.class = P.CLASS_OF_FLAG[cond.flag] == "indirect" and "indirect" or "measured"
      ps.nhits = ps.nhits + 1
      cond.hit = ps.nhits
    end
    sets[#sets + 1] = set
    if ch(s, i) ~= "$" then break end
    i = i + 1
  end
  return sets, i
end

--- rc_parse_value_internal: "M:..." style (condition sets joined by '$') or
-- the legacy format.  Returns a value unit and the next index.
function U.parse_value(ps, i)
  local was_value = ps.is_value
  ps.is_value = true
  local sets
  if ch(ps.s, i + 1) == ":" then
    sets, i = parse_cond_value(ps, i)
  else
    sets, i = parse_legacy_value(ps, i)
  end
  ps.is_value = was_value
  return { kind = "value", sets = sets, nhits = ps.nhits }, i
end

--- rc_parse_lboard_internal: "STA:...::CAN:...::SUB:...::VAL:...[::PRO:...]".
-- Returns { start, cancel, submit, value, progress } units.
function U.parse_lboard(s, mem)
  local i = 1
  local parts = {}
  local FIELDS = { STA = "start", CAN = "cancel", SUB = "submit", VAL = "value", PRO = "progress" }
  local DUP = { start = "Duplicated start condition", cancel = "Duplicated cancel condition",
    submit = "Duplicated submit condition", value = "Duplicated value expression",
    progress = "Duplicated progress expression" }
  while true do
    local field = FIELDS[sub(s, i, i + 2):upper()]
    if field and ch(s, i + 3) == ":" then
      if parts[field] then fail(i, DUP[field]) end
      i = i + 4
      local c = ch(s, i)
      if c ~= "" and c ~= ":" then
        local ps = U.new_state(s, mem, false)
        if field == "value" or field == "progress" then
          parts[field], i = U.parse_value(ps, i)
        else
          parts[field], i = U.parse_trigger(ps, i)
        end
      end
    end
    local c = ch(s, i)
    if c == "" or c == '"' then break end
    if c ~= ":" or ch(s, i + 1) ~= ":" then fail(i, "Invalid field in leaderboard") end
    i = i + 2
  end
  if not parts.start then fail(i, "Missing start condition") end
  if not parts.cancel then fail(i, "Missing cancel condition") end
  if not parts.submit then fail(i, "Missing submit condition") end
  if not parts.value then fail(i, "Missing value expression") end
  return parts
end

return U
