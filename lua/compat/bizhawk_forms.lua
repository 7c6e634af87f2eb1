-- BizHawk's forms module for the BizHawk layer (lua/compat/bizhawk.lua): Retrolua has no dialog windows, so a form
-- is kept in memory. Controls hold their text, checked state and properties, so a script that builds a settings
-- dialog and reads its defaults runs; nothing is shown and no button is ever clicked (warned once). Drawing on a
-- picture box is dropped. Semantics follow BizHawk's FormsLuaLibrary: handles are numbers, gettext gives strings,
-- destroying a form runs its onclose callback, dropdown items are sorted.
local compat, LAYER, raise = ...
local format, tostring, type, pairs = string.format, tostring, type, pairs

local NOTE = "no window is shown: controls keep their values and are never clicked"
local WARNING = "forms: approximated in Retrolua (" .. NOTE .. ")"
local function warn() compat.warn_once("bizhawk:forms", WARNING) end

local forms = {}
local controls = {}  -- handle -> { form = handle, text = "…", checked = bool, properties = {} }
local windows = {}   -- form handle -> { onclose = fn, controls = { handle, … } }
local next_handle = 0x1000

local function new_handle()
  next_handle = next_handle + 1
  return next_handle
end

local function text_of(v)
  if v == nil then return "" end
  return tostring(v)
end

-- Every form function warns once for them all, then runs.
local def = compat.definer(LAYER, function(name, fn)
  forms[name:match("^forms%.(.+)$")] = function(...)
    warn()
    return fn(...)
  end
end)

def("forms.newform", "approximated", function(width, height, title, onclose)
  local handle = new_handle()
  windows[handle] = { onclose = type(onclose) == "function" and onclose or nil, controls = {} }
  controls[handle] = { text = text_of(title), checked = false, properties = { Width = width, Height = height } }
  return handle
end, NOTE)

local function add(form, text)
  local window = windows[form]
  if not window then return 0 end  -- BizHawk gives 0 for a form handle it does not know
  local handle = new_handle()
  controls[handle] = { form = form, text = text_of(text), checked = false, properties = {} }
  window.controls[#window.controls + 1] = handle
  return handle
end

def("forms.button", "approximated", function(form, caption) return add(form, caption) end,
  NOTE .. " (the click callback never runs)")
def("forms.checkbox", "approximated", function(form, caption) return add(form, caption) end, NOTE)
def("forms.label", "approximated", function(form, caption) return add(form, caption) end, NOTE)
def("forms.textbox", "approximated", function(form, caption) return add(form, caption) end, NOTE)
def("forms.pictureBox", "approximated", function(form) return add(form, "") end, "drawing on it is dropped (no window)")
def("forms.dropdown", "approximated", function(form, items)
  local list = {}
  if type(items) == "table" then
    for _, v in pairs(items) do list[#list + 1] = tostring(v) end
    table.sort(list)
  end
  local handle = add(form, list[1])
  if controls[handle] then controls[handle].items = list end
  return handle
end, NOTE .. "; the first item (sorted, as BizHawk sorts them) is selected")

def("forms.gettext", "approximated", function(handle)
  local c = controls[handle]
  return c and c.text or ""
end, NOTE)
def("forms.settext", "approximated", function(handle, caption)
  local c = controls[handle]
  if c then c.text = text_of(caption) end
end, NOTE)
def("forms.ischecked", "approximated", function(handle)
  local c = controls[handle]
  return c ~= nil and c.checked == true
end, NOTE)
def("forms.setproperty", "approximated", function(handle, property, value)
  local c = controls[handle]
  if not c then return end
  if property == "Text" then
    c.text = text_of(value)
  elseif property == "Checked" then
    c.checked = value == true or value == "True" or value == "true"
  else
    c.properties[tostring(property)] = value
  end
end, NOTE)
def("forms.getproperty", "approximated", function(handle, property)
  local c = controls[handle]
  if not c then return "" end
  if property == "Text" then return c.text end
  if property == "Checked" then return c.checked and "True" or "False" end
  local v = c.properties[tostring(property)]
  if v == nil then return "" end
  return tostring(v)
end, NOTE)
def("forms.setdropdownitems", "approximated", function(handle, items)
  local c = controls[handle]
  if not c or type(items) ~= "table" then return end
  local list = {}
  for _, v in pairs(items) do list[#list + 1] = tostring(v) end
  table.sort(list)
  c.items, c.text = list, list[1] or ""
end, NOTE)

local function destroy(form)
  local window = windows[form]
  if not window then return false end
  windows[form] = nil
  for _, handle in ipairs(window.controls) do controls[handle] = nil end
  controls[form] = nil
  if window.onclose then window.onclose() end
  return true
end
def("forms.destroy", "approximated", destroy, "runs the form's onclose callback, as closing the window does")
def("forms.destroyall", "approximated", function()
  local list = {}
  for form in pairs(windows) do list[#list + 1] = form end
  table.sort(list)
  for _, form in ipairs(list) do destroy(form) end
end, "runs each form's onclose callback")

def("forms.openfile", "approximated", function() return "" end,
  "gives \"\", as when the dialog is cancelled (no window)")
def("forms.getMouseX", "approximated", function() return 0 end, NOTE)
def("forms.getMouseY", "approximated", function() return 0 end, NOTE)

-- Layout, clicks and picture-box drawing: kept nowhere (there is no window to show them in).
for name in ([[addclick clearclicks setlocation setsize refresh clear clearImageCache setDefaultBackgroundColor
  setDefaultForegroundColor setDefaultTextBackground drawArc drawAxis drawBezier drawBox drawEllipse drawIcon drawImage
  drawImageRegion drawLine drawPie drawPixel drawPolygon drawRectangle drawString drawText]]):gmatch("%S+") do
  def("forms." .. name, "approximated", function() end, "dropped: no window")
end

-- anything else in forms fails clearly
setmetatable(forms, { __index = function(_, key)
  raise(format("forms.%s: not available in Retrolua (no such function in BizHawk's forms)", tostring(key)))
end })

return forms
