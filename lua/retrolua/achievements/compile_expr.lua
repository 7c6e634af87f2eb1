-- retrolua.achievements.compile_expr: what the compiler knows of a program's
-- memory nodes (which are read, how often, with what history: `analyze`) and
-- the Lua expressions it writes for them: operand values (`expr`), a node's
-- value this frame (`node_def`) and a condition's comparison (`compare`).

local num = require("retrolua.achievements.num")
local parse = require("retrolua.achievements.parse")

local format = string.format
local SIZES = parse.SIZES
local COMPARISON = parse.COMPARISON

local E = {}

local OP_HELPER = {
  ["*"] = "OP_MUL", ["/"] = "OP_DIV", ["%"] = "OP_MOD", ["&"] = "OP_AND", ["^"] = "OP_XOR",
  ["+"] = "OP_ADD", ["-"] = "OP_SUB", ["acc+"] = "OP_ACCADD", ["acc-"] = "OP_ACCSUB", ["neg+"] = "OP_NEGADD",
}

local LUA_CMP = { ["="] = "==", ["!="] = "~=", ["<"] = "<", ["<="] = "<=", [">"] = ">", [">="] = ">=" }

---------------------------------------------------------------------------
-- analysis: which nodes are used, how, and how often
---------------------------------------------------------------------------

local function evaluated(cond)
  return cond.class ~= "indirect" and cond.flag ~= "K"
end

local function unit_sets(unit)
  if unit.kind == "value" then return unit.sets end
  local sets = {}
  if unit.core then sets[1] = unit.core end
  for _, s in ipairs(unit.alts) do sets[#sets + 1] = s end
  return sets
end

-- nodes an operand reads (through a recall's reference)
local function operand_node(op)
  while op.k == "recall" and op.ref do op = op.ref end
  if op.k == "mem" then return op.node end
  return nil
end

-- A node inlined into the expression that uses it nests that expression one
-- level deeper; past this depth it is stored instead, so an AddSource chain
-- of any length compiles to code within Lua's parser limits.
local MAX_INLINE_DEPTH = 16

-- iterative: AddSource chains and pointer chains may be thousands of nodes deep
local function analyze(prog)
  local uses, reached = {}, {}
  local stack = {}
  local function push(op)
    if op.k == "mem" or (op.k == "recall" and op.ref) then stack[#stack + 1] = op end
  end
  local function drain()
    while #stack > 0 do
      local op = stack[#stack]
      stack[#stack] = nil
      if op.k == "recall" then
        push(op.ref)
      else
        local node, access = op.node, op.access
        uses[node] = (uses[node] or 0) + 1
        if access == "d" then node.need_delta = true elseif access == "p" then node.need_prior = true end
        if not reached[node] then
          reached[node] = true
          if node.kind == "ind" then
            push(node.parent)
          elseif node.kind == "mod" then
            push(node.modifier)
            push(node.parent)
          end
        end
      end
    end
  end
  for _, unit in ipairs(prog.units) do
    for _, set in ipairs(unit_sets(unit)) do
      for _, cond in ipairs(set.conds) do
        if evaluated(cond) then
          if COMPARISON[cond.oper] then
            push(cond.op1)
            push(cond.op2)
            drain()
          end
          if cond.flag == "M" and cond.req == 0 then push(cond.op1); drain() end
        end
      end
    end
  end
  -- nodes are registered after the nodes they read, so one pass in id order
  -- knows every child's inlined depth
  local inline, depth = {}, {}
  for _, node in ipairs(prog.mem.nodes) do
    if reached[node] then
      local d = 1
      for _, op in ipairs({ node.parent or false, node.modifier or false }) do
        local child = op and operand_node(op)
        if child and inline[child] and depth[child] + 1 > d then d = depth[child] + 1 end
      end
      depth[node] = d
      if not node.need_delta and not node.need_prior and uses[node] == 1 and d <= MAX_INLINE_DEPTH then
        inline[node] = true
      end
    end
  end
  -- rcheevos updates every plain read first, then the combined values in the order they were
  -- created.  A {recall} resolved after its node was created (a pause chain's Remember, which
  -- conditions before it see) can read a combined value created later: rcheevos then sees that
  -- value as it was last frame.  Such a node and the later node it reads are both stored, so the
  -- refresh, one pass in id order, reads the later node's value before updating it.
  for _, node in ipairs(prog.mem.nodes) do
    if reached[node] and node.kind ~= "mem" then
      for _, op in ipairs({ node.parent or false, node.modifier or false }) do
        local child = op and operand_node(op)
        if child and child.kind ~= "mem" and child.id > node.id then
          inline[node], inline[child] = nil, nil
        end
      end
    end
  end
  return reached, inline
end

---------------------------------------------------------------------------
-- expressions
---------------------------------------------------------------------------

local function flit(v)
  if v ~= v then return "(0/0)" end
  if v == math.huge then return "(1/0)" end
  if v == -math.huge then return "(-1/0)" end
  return "(" .. format("%a", v) .. ")"
end

local function cheap(x) return not x:find("%w%(") end

local expr

local function raw(ctx, node, access)
  if access == "d" then return "D[" .. node.id .. "]" end
  if access == "p" then return "P[" .. node.id .. "]" end
  if ctx.inline[node] then return "(" .. ctx.def(node) .. ")" end
  return "V[" .. node.id .. "]"
end

-- size transform of a raw read (rc_transform_memref_value); returns code, type
local function transform(r, size, node)
  local info = SIZES[size]
  if size == "8" then
    if node.nbytes == 1 and not node.mask then return r, "i" end
    return "(" .. r .. " & 0xFF)", "i"
  elseif size == "16" then
    if node.nbytes == 2 and not node.mask then return r, "i" end
    return "(" .. r .. " & 0xFFFF)", "i"
  elseif size == "24" then return "(" .. r .. " & 0xFFFFFF)", "i"
  elseif size == "32" then return r, "i"
  elseif info.bit then
    if info.bit == 0 then return "(" .. r .. " & 1)", "i" end
    return format("((%s >> %d) & 1)", r, info.bit), "i"
  elseif size == "lo" then return "(" .. r .. " & 0xF)", "i"
  elseif size == "hi" then return "((" .. r .. " >> 4) & 0xF)", "i"
  elseif size == "bc" then return "BITCNT[" .. r .. " & 0xFF]", "i"
  elseif size == "16be" then
    if cheap(r) then return format("(((%s & 0xFF) << 8) | ((%s >> 8) & 0xFF))", r, r), "i" end
    return "BSWAP16(" .. r .. ")", "i"
  elseif size == "24be" then return "BSWAP24(" .. r .. ")", "i"
  elseif size == "32be" then return "BSWAP32(" .. r .. ")", "i"
  elseif size == "float" then return "DEC_FLOAT(" .. r .. ")", "f"
  elseif size == "floatbe" then return "DEC_FLOATBE(" .. r .. ")", "f"
  elseif size == "dbl32" then return "DEC_DBL32(" .. r .. ")", "f"
  elseif size == "dbl32be" then return "DEC_DBL32BE(" .. r .. ")", "f"
  elseif size == "mbf32" then return "DEC_MBF32(" .. r .. ")", "f"
  elseif size == "mbf32le" then return "DEC_MBF32LE(" .. r .. ")", "f"
  end
  error("unknown size " .. tostring(size))
end

local BCD_FN = { ["8"] = "BCD8", ["16"] = "BCD16", ["16be"] = "BCD16", ["24"] = "BCD24", ["24be"] = "BCD24",
  ["32"] = "BCD32", ["32be"] = "BCD32" }
local INVERT_MASK = { lo = "0xF", hi = "0xF", ["8"] = "0xFF", ["16"] = "0xFFFF", ["16be"] = "0xFFFF",
  ["24"] = "0xFFFFFF", ["24be"] = "0xFFFFFF", ["32"] = "0xFFFFFFFF", ["32be"] = "0xFFFFFFFF" }

local function node_value(ctx, node, access, size)
  local r = raw(ctx, node, access)
  if node.kind == "mod" then return r, node.fl and "f" or "i" end
  return transform(r, size, node)
end

-- rc_evaluate_operand; returns code and type ("i" unsigned integer, "f" float)
expr = function(ctx, op)
  local k = op.k
  if k == "const" then return format("%d", op.v), "i" end
  if k == "fp" then return flit(op.v), "f" end
  if k == "func" then return "0", "i" end
  if k == "recall" then
    local ref = op.ref
    if not ref then return "0", "i" end
    if ref.k ~= "mem" then return expr(ctx, ref) end
    -- a recalled memory operand is read with its access type, without BCD/invert
    local access = (ref.access == "d" or ref.access == "p") and ref.access or "v"
    return node_value(ctx, ref.node, access, ref.size)
  end
  local x, t = node_value(ctx, op.node, op.access, op.size)
  if t == "i" and op.node.kind ~= "mod" then
    if op.access == "b" then
      local fn = BCD_FN[op.size]
      if fn == "BCD8" and cheap(x) then
        x = format("(((%s >> 4) & 0xF) * 10 + (%s & 0xF))", x, x)
      elseif fn then
        x = fn .. "(" .. x .. ")"
      end
    elseif op.access == "i" then
      x = "(" .. x .. " ~ " .. (INVERT_MASK[op.size] or "1") .. ")"
    end
  end
  return x, t
end

-- the expression computing a node's value for this frame
local function node_def(ctx, node)
  if node.kind == "mem" then
    local r = format("peek(0x%X, %d)", node.addr, node.nbytes)
    if node.mask then r = r .. format(" & 0x%X", node.mask) end
    return r
  elseif node.kind == "ind" then
    local p, t = expr(ctx, node.parent)
    local addr
    if t == "i" then
      addr = node.offset == 0 and p or format("(%s + %d) & 0xFFFFFFFF", p, node.offset)
    else
      addr = format("TOU32(F32(%s + %s))", p, flit(num.f32(node.offset + 0.0)))
    end
    local r = format("peek(%s, %d)", addr, node.nbytes)
    if node.mask then r = r .. format(" & 0x%X", node.mask) end
    return r
  end
  local a, ta = expr(ctx, node.parent)
  local b, tb = expr(ctx, node.modifier)
  local op = node.op
  if ta == "i" and tb == "i" and not node.fl then
    if op == "+" or op == "acc+" then return format("(%s + %s) & 0xFFFFFFFF", a, b) end
    if op == "-" or op == "acc-" then return format("(%s - %s) & 0xFFFFFFFF", a, b) end
    if op == "neg+" then return format("(%s - %s) & 0xFFFFFFFF", b, a) end
    if op == "*" then return format("(%s * %s) & 0xFFFFFFFF", a, b) end
    if op == "&" then return format("%s & %s", a, b) end
    if op == "^" then return format("%s ~ %s", a, b) end
    if (op == "/" or op == "%") and node.modifier.k == "const" then
      if node.modifier.v == 0 then return "0" end
      return format("%s %s %s", a, op == "/" and "//" or "%", b)
    end
  end
  return format("%s(%s, %s, %s)", OP_HELPER[op], a, b, tostring(node.fl))
end

local function compare(ctx, cond)
  local oper = cond.oper
  if not COMPARISON[oper] then return "true" end
  local a, ta = expr(ctx, cond.op1)
  local b, tb = expr(ctx, cond.op2)
  if ta == "i" and tb == "i" then
    return format("(%s %s %s)", a, LUA_CMP[oper], b)
  end
  if ta == "i" then a = "TOF(" .. a .. ")" end
  if tb == "i" then b = "TOF(" .. b .. ")" end
  return format("(FCMP(%s, %s) %s 0)", a, b, LUA_CMP[oper])
end

E.evaluated, E.unit_sets, E.analyze = evaluated, unit_sets, analyze
E.expr, E.node_def, E.compare = expr, node_def, compare

return E
