-- The in-window Lua console's model (lua/defaults/console.lua draws it): the input line with its cursor,
-- the history, the chunk being gathered over several lines, the scrollback and how it wraps and scrolls,
-- and Tab completion's splice. No drawing and no host calls here, so it is tested with stock Lua
-- (Tests/lua/console_test.lua).
--
--   local model = require("retrolua.console_model").new({ history = lines, history_size = 500 })
--   model:insert("1+1"); local chunk = model:enter()   -- "1+1": hand it to console.evaluate
--   model:reply({ status = "done", values = { "2" } })  -- the scrollback now ends "> 1+1", "2"

local model = {}
local Model = {}
Model.__index = Model

-- Longest logical line kept in the scrollback (a bigger one is cut and says so), so one huge string
-- cannot make thousands of rows.
local MAX_LINE = 4000
-- Candidates shown when Tab finds several.
local MAX_CANDIDATES = 60
-- Lines of one answer read aloud (under --speak).
local MAX_SAID = 8
-- Where a line of history is cut (a longer one is not remembered: it would not be typed again).
local MAX_HISTORY_LINE = 2000

model.PROMPT, model.CONTINUATION = "> ", ">> "

--- A console: `options.history` (oldest first, kept as the list it is), `options.history_size` (entries kept,
--- default 500), `options.scrollback` (logical lines kept, default 1000).
function model.new(options)
  options = options or {}
  return setmetatable({
    line = "", cursor = 0,           -- the text typed and the bytes before the cursor
    history = options.history or {},
    history_size = options.history_size or 500,
    browsing = nil, draft = "",      -- the history entry shown (up/down), and the line typed before it
    pending = {},                    -- the lines of a chunk the evaluator called incomplete
    queue = {},                      -- lines entered while a chunk was being evaluated
    busy = false,                    -- a chunk was sent and its reply has not come
    lines = {},                      -- the scrollback: { text =, kind = } (kind: echo, value, out, err, error, info)
    max_lines = options.scrollback or 1000,
    scroll = 0,                      -- rows scrolled back from the bottom
    cache = nil,                     -- the wrapped rows, for cache.columns
  }, Model)
end

-- Line editing. The console types ASCII (ui.char), so a byte is a character.

function Model:insert(text)
  self.line = self.line:sub(1, self.cursor) .. text .. self.line:sub(self.cursor + 1)
  self.cursor = self.cursor + #text
end

function Model:left() self.cursor = math.max(0, self.cursor - 1) end
function Model:right() self.cursor = math.min(#self.line, self.cursor + 1) end
function Model:home() self.cursor = 0 end
function Model:finish() self.cursor = #self.line end

function Model:backspace()
  if self.cursor == 0 then return end
  self.line = self.line:sub(1, self.cursor - 1) .. self.line:sub(self.cursor + 1)
  self.cursor = self.cursor - 1
end

function Model:delete()
  self.line = self.line:sub(1, self.cursor) .. self.line:sub(self.cursor + 2)
end

-- The text after the cursor goes (ctrl+k); the whole line (ctrl+u).
function Model:kill_to_end() self.line = self.line:sub(1, self.cursor) end
function Model:clear_line() self.line, self.cursor, self.browsing = "", 0, nil end

local function set_line(self, text)
  self.line, self.cursor = text, #text
end

-- History: up shows older entries, down newer ones and at last the line that was being typed.

function Model:history_up()
  if #self.history == 0 then return end
  if self.browsing == nil then
    self.draft = self.line
    self.browsing = #self.history
  elseif self.browsing > 1 then
    self.browsing = self.browsing - 1
  end
  set_line(self, self.history[self.browsing])
end

function Model:history_down()
  if self.browsing == nil then return end
  if self.browsing < #self.history then
    self.browsing = self.browsing + 1
    set_line(self, self.history[self.browsing])
  else
    self.browsing = nil
    set_line(self, self.draft)
  end
end

--- Adds `line` to the history (not a blank one, nor the last entry again); true when the history changed.
function Model:remember(line)
  if not line:find("%S") or #line > MAX_HISTORY_LINE or self.history[#self.history] == line then return false end
  self.history[#self.history + 1] = line
  while #self.history > self.history_size do table.remove(self.history, 1) end
  return true
end

-- The scrollback.

-- One line as the bitmap font shows it: cut at MAX_LINE (saying so), "…" as "...", tabs to the next
-- multiple of 8 columns.
local function displayable(line)
  if #line > MAX_LINE then
    line = line:sub(1, MAX_LINE) .. string.format("... (%d more characters)", #line - MAX_LINE)
  end
  line = line:gsub("\r$", ""):gsub("…", "...")
  if not line:find("\t", 1, true) then return line end
  local out, width = {}, 0
  for piece, tab in line:gmatch("([^\t]*)(\t?)") do
    out[#out + 1] = piece
    width = width + (utf8.len(piece) or #piece)
    if tab ~= "" then
      local spaces = 8 - width % 8
      out[#out + 1] = string.rep(" ", spaces)
      width = width + spaces
    end
  end
  return table.concat(out)
end

-- Drops the oldest lines beyond `limit`.
local function trim(self, limit)
  if #self.lines <= limit then return end
  local extra = #self.lines - limit
  table.move(self.lines, extra + 1, #self.lines, 1)
  for index = #self.lines, #self.lines - extra + 1, -1 do self.lines[index] = nil end
  self.cache = nil
end

-- Appends without the exact bound (a reply of many lines trims once at its end); returns the lines added.
local function append(self, text, kind)
  local added = 0
  kind = kind or "out"
  for piece in (tostring(text) .. "\n"):gmatch("([^\n]*)\n") do
    piece = displayable(piece)
    self.lines[#self.lines + 1] = { text = piece, kind = kind }
    added = added + 1
    if self.cache then
      local rows = self.cache.rows
      local before = #rows
      model.wrap(piece, self.cache.columns, kind, rows)
      -- Scrolled back: the rows in view stay in view.
      if self.scroll > 0 then self.scroll = self.scroll + #rows - before end
    end
    if #self.lines >= 2 * self.max_lines then trim(self, self.max_lines) end
  end
  return added
end

--- Appends `text` (split at newlines) to the scrollback as `kind`; returns the lines added.
function Model:print(text, kind)
  local added = append(self, text, kind)
  trim(self, self.max_lines)
  return added
end

function Model:clear()
  self.lines, self.cache, self.scroll = {}, nil, 0
end

--- `text` cut into rows of at most `columns` characters (UTF-8 characters count as one when `text` is
--- valid UTF-8), appended to `into` as { text =, kind = }; an empty line is one empty row.
function model.wrap(text, columns, kind, into)
  into = into or {}
  columns = math.max(1, columns)
  local length = utf8.len(text)
  if not length then
    for start = 1, math.max(1, #text), columns do into[#into + 1] = { text = text:sub(start, start + columns - 1), kind = kind } end
    return into
  end
  if length <= columns then
    into[#into + 1] = { text = text, kind = kind }
    return into
  end
  local first = 1
  while first <= #text do
    local after = utf8.offset(text, columns + 1, first) or (#text + 1)
    into[#into + 1] = { text = text:sub(first, after - 1), kind = kind }
    first = after
  end
  return into
end

--- The scrollback as rows of `columns` characters (kept until the width or the scrollback changes).
function Model:rows(columns)
  if not self.cache or self.cache.columns ~= columns then
    local rows = {}
    for _, line in ipairs(self.lines) do model.wrap(line.text, columns, line.kind, rows) end
    self.cache = { columns = columns, rows = rows }
    self.scroll = math.min(self.scroll, math.max(0, #rows - 1))
  end
  return self.cache.rows
end

--- The rows to show in `visible` rows at `columns`: first and last index into Model:rows(columns).
function Model:view(columns, visible)
  local rows = self:rows(columns)
  self.scroll = math.max(0, math.min(self.scroll, #rows - visible))
  local last = #rows - self.scroll
  return math.max(1, last - visible + 1), last
end

--- Scrolls by `pages` pages of `visible` rows (positive: back, toward older output).
function Model:page(pages, columns, visible)
  local rows = self:rows(columns)
  local step = math.max(1, visible - 1)
  self.scroll = math.max(0, math.min(self.scroll + pages * step, #rows - visible))
end

-- Evaluation: Return gathers the line into the chunk; the reply says what became of it.

function Model:prompt()
  return #self.pending > 0 and model.CONTINUATION or model.PROMPT
end

--- The next chunk to evaluate, echoing its line, when none is being evaluated and a line waits; else nil.
function Model:next_chunk()
  while not self.busy and #self.queue > 0 do
    local line = table.remove(self.queue, 1)
    self:print(self:prompt() .. line, "echo")
    -- An empty line alone is only echoed (as the standalone lua shows its prompt again).
    if line:find("%S") or #self.pending > 0 then
      self.pending[#self.pending + 1] = line
      self.busy = true
      return table.concat(self.pending, "\n")
    end
  end
  return nil
end

--- Return: the line typed goes to the history and the queue; returns the chunk to send now, if any.
function Model:enter()
  local line = self.line
  self.line, self.cursor, self.browsing, self.draft = "", 0, nil, ""
  self.scroll = 0
  self.queue[#self.queue + 1] = line
  return self:next_chunk()
end

--- Drops the chunk being gathered and the line (ctrl+c); true when there was something to drop.
function Model:cancel()
  local had = #self.pending > 0 or self.line ~= ""
  if had then self:print(self:prompt() .. self.line .. "^C", "echo") end
  if not self.busy then self.pending = {} end
  self.queue = {}
  self:clear_line()
  return had
end

--- The evaluator's answer to the last chunk sent: prints its output, values or error; returns the lines
--- printed (for speech), an empty list for an incomplete chunk or a statement without output.
function Model:reply(reply)
  self.busy = false
  local said = {}
  -- Read aloud: the first lines of output, and always the value or the error.
  local function say(text, kind, always)
    text = tostring(text)
    append(self, text, kind)
    if always or #said < MAX_SAID then said[#said + 1] = text end
  end
  if type(reply) ~= "table" then
    self.pending = {}
    say("console: no reply from the evaluator", "error")
    trim(self, self.max_lines)
    return said
  end
  -- Output longer than the scrollback: only its end could show.
  local output = type(reply.output) == "table" and reply.output or {}
  local first = math.max(1, #output - self.max_lines + 1)
  if first > 1 then say(string.format("... (%d earlier lines of output not shown)", first - 1), "info") end
  for index = first, #output do
    local piece = output[index]
    if type(piece) == "table" and piece.text ~= nil then
      say((tostring(piece.text):gsub("\n$", "")), piece.stream == "err" and "err" or "out")
    end
  end
  if reply.status ~= "incomplete" then
    self.pending = {}
    if reply.status == "error" then
      say(reply.error or "error", "error", true)
    elseif type(reply.values) == "table" and #reply.values > 0 then
      local values = {}
      for index, value in ipairs(reply.values) do values[index] = tostring(value) end
      say(table.concat(values, "\t"), "value", true)
    end
  end
  trim(self, self.max_lines)
  return said
end

-- Completion: the name before the cursor is sent; the answer replaces it.

--- What to send for completing, and a ticket that tells, when the answer comes, whether the line is still
--- the one it was asked for.
function Model:completion()
  local before = self.line:sub(1, self.cursor)
  return before, { line = self.line, cursor = self.cursor }
end

local function common_prefix(list)
  local prefix = list[1]
  for index = 2, #list do
    local other = list[index]
    local length = 0
    while length < #prefix and length < #other and prefix:byte(length + 1) == other:byte(length + 1) do
      length = length + 1
    end
    prefix = prefix:sub(1, length)
  end
  return prefix
end

--- Applies the completions `matches` for `ticket`: one replaces the name before the cursor, several put
--- their longest common prefix there and list themselves in the scrollback. Returns what happened:
--- "stale" (the line changed meanwhile), "none", "one", "several".
function Model:complete(matches, ticket)
  if ticket and (ticket.line ~= self.line or ticket.cursor ~= self.cursor) then return "stale" end
  local list = {}
  for _, match in ipairs(type(matches) == "table" and matches or {}) do
    if type(match) == "string" and match ~= "" then list[#list + 1] = match end
  end
  if #list == 0 then return "none" end
  local before, after = self.line:sub(1, self.cursor), self.line:sub(self.cursor + 1)
  local word = before:match("[%w_%.:]*$")
  local replacement = #list == 1 and list[1] or common_prefix(list)
  if #replacement >= #word then
    before = before:sub(1, #before - #word) .. replacement
    self.line, self.cursor = before .. after, #before
  end
  if #list == 1 then return "one" end
  local shown = {}
  for index = 1, math.min(#list, MAX_CANDIDATES) do shown[index] = list[index] end
  local text = table.concat(shown, "  ")
  if #list > MAX_CANDIDATES then text = text .. string.format("  ... (%d more)", #list - MAX_CANDIDATES) end
  self:print(text, "info")
  return "several"
end

-- History as stored in the data folder: one entry a line (a newline in an entry cannot be typed).

function model.parse_history(text, size)
  local list = {}
  for line in (text or ""):gmatch("[^\n]+") do
    if #line <= MAX_HISTORY_LINE then list[#list + 1] = line end
  end
  while #list > (size or 500) do table.remove(list, 1) end
  return list
end

function model.history_text(list)
  return #list > 0 and (table.concat(list, "\n") .. "\n") or ""
end

return model
