-- Default input mapping, part of Retrolua's replaceable Lua frontend: host keyboard and gamepads →
-- RetroPads on ports 1–4, with analog sticks and turbo buttons, through joypad.set_player (the
-- player's layer, under any script's joypad.set overrides).
--
-- Remaps merge in, later files winning: ~/.config/retrolua/input.lua, then
-- ~/.config/retrolua/input/CORE.lua, then ~/.config/retrolua/input/CORE/GAME.lua, each returning a
-- partial table like `return { keyboard = { a = "k", b = "j" }, turbo = { { key = "c", button = "a" } } }`.

local info = emu.info()
local layers = { "input.lua", "input/" .. info.core .. ".lua" }
if info.rom and info.rom.name then layers[3] = "input/" .. info.core .. "/" .. info.rom.name .. ".lua" end
-- The keyboard and gamepad maps take any button name, and false unbinds one.
local settings = require("retrolua.settings").load_layers("input", {
  -- Keyboard → RetroPad button on `keyboard_port` (SDL key names).
  keyboard_port = 1,
  keyboard = {
    up = "up", down = "down", left = "left", right = "right",
    b = "z", a = "x", y = "a", x = "s", l = "q", r = "w", l2 = "1", r2 = "2",
    start = "return", select = "right shift",
  },
  -- SDL GameController buttons (by position) → RetroPad buttons (by position: bottom face is B).
  gamepad = {
    a = "b", b = "a", x = "y", y = "x", leftshoulder = "l", rightshoulder = "r",
    back = "select", start = "start", leftstick = "l3", rightstick = "r3",
    dpup = "up", dpdown = "down", dpleft = "left", dpright = "right",
  },
  -- Gamepad n drives port gamepad_ports[n].
  gamepad_ports = { 1, 2, 3, 4 },
  trigger_threshold = 16384,
  -- Turbo: while `key` (or gamepad button `pad_button`) is held, `button` is pressed `period` frames
  -- out of every 2 × `period`.
  turbo = require("retrolua.hotkeys").TURBO,  -- { { key = "c", button = "a", period = 2, pad_button = … } }
}, layers, { open = { keyboard = true, gamepad = true }, allow_false = true })

-- Every key of a port's state: the host's buttons (all bits of a mask) and the analog axes.
local BUTTONS = joypad.names(0xFFFF)
for _, axis in ipairs({ "left_x", "left_y", "right_x", "right_y" }) do BUTTONS[#BUTTONS + 1] = axis end
local ports, sent = {}, {}
for port = 1, 4 do ports[port], sent[port] = {}, {} end

local function changed(a, b)
  for _, key in ipairs(BUTTONS) do
    if a[key] ~= b[key] then return true end
  end
  return false
end

-- Builds the state of each port with a device (the keyboard's, the gamepads') and hands
-- joypad.set_player only what changed; a port whose device went away is released once.
local active = {}
event.on("frame_start", function()
  local pads = input.gamepads()
  for port = 1, 4 do active[port] = false end
  active[settings.keyboard_port] = true
  for index in ipairs(pads) do active[settings.gamepad_ports[index] or 0] = true end
  for port = 1, 4 do
    if active[port] or next(sent[port]) ~= nil then
      local state = ports[port]
      for _, key in ipairs(BUTTONS) do state[key] = nil end
    end
  end
  local keys = input.keys()
  local keyboard = ports[settings.keyboard_port]
  if keyboard then
    for button, key in pairs(settings.keyboard) do
      if key and keys[key] then keyboard[button] = true end
    end
  end
  for index, pad in ipairs(pads) do
    local state = ports[settings.gamepad_ports[index] or 0]
    if state then
      for name in pairs(pad.buttons) do
        local button = settings.gamepad[name]
        if button then state[button] = true end
      end
      local axes = pad.axes
      if (axes.lefttrigger or 0) > settings.trigger_threshold then state.l2 = true end
      if (axes.righttrigger or 0) > settings.trigger_threshold then state.r2 = true end
      state.left_x, state.left_y = axes.leftx, axes.lefty
      state.right_x, state.right_y = axes.rightx, axes.righty
    end
  end
  local frame = emu.framecount()
  for _, turbo in ipairs(settings.turbo) do
    local held = keys[turbo.key]
    for _, pad in ipairs(pads) do held = held or pad.buttons[turbo.pad_button] end
    local period = turbo.period or 2
    if held and keyboard and frame % (2 * period) < period then keyboard[turbo.button] = true end
  end
  for port = 1, 4 do
    if (active[port] or next(sent[port]) ~= nil) and changed(ports[port], sent[port]) then
      joypad.set_player(port, ports[port])
      for _, key in ipairs(BUTTONS) do sent[port][key] = ports[port][key] end
    end
  end
end)
