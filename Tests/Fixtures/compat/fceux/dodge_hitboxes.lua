-- A hitbox viewer and dodging bot for Retrolua's Dodge ROM in FCEUX's style: it loops forever like FCEUX
-- scripts do (the run's frame limit ends it) and reports from its exit callback.
module("dodgebot", package.seeall)

HAZARDS = 6
ADDR = {pad = 0x02, state = 0x05, x = 0x06, y = 0x07, lives = 0x08, score = 0x09, coin_x = 0x0D, coin_y = 0x0E,
        hz_x = 0x20, hz_y = 0x28, hz_wait = 0x40}
BUTTON_BITS = {A = 0x80, B = 0x40, select = 0x20, start = 0x10, up = 0x08, down = 0x04, left = 0x02, right = 0x01}

frames, mismatches, moves_checked, boxes, coins = 0, 0, 0, 0, 0
pressed = {}

function hazards()
  local xs = memory.readbyterange(ADDR.hz_x, HAZARDS)
  local ys = memory.readbyterange(ADDR.hz_y, HAZARDS)
  local list = {}
  for i = 1, HAZARDS do
    if memory.readbyte(ADDR.hz_wait + i - 1) == 0 then
      table.insert(list, {x = string.byte(xs, i), y = string.byte(ys, i)})
    end
  end
  return list
end

function decide(px, py, list)
  local buttons = {}
  for _, h in ipairs(list) do
    if h.y < py and py - h.y < 64 and math.abs(h.x - px) < 16 then
      if h.x >= px then buttons.left = true else buttons.right = true end
    end
  end
  if buttons.left and buttons.right then buttons.right = nil end
  if not buttons.left and not buttons.right then
    -- Nothing falls close: go for the coin.
    local cx, cy = memory.readbyte(ADDR.coin_x), memory.readbyte(ADDR.coin_y)
    if cx > px + 1 then buttons.right = true elseif cx < px - 1 then buttons.left = true end
    if cy > py + 1 then buttons.down = true elseif cy < py - 1 then buttons.up = true end
  end
  return buttons
end

memory.registerwrite(ADDR.score, function(address, size, value) coins = coins + 1 end)

emu.registerafter(function()
  -- The game's pad byte shows what it read this frame: it must be what the bot pressed.
  local pad = memory.readbyte(ADDR.pad)
  for name, mask in pairs(BUTTON_BITS) do
    local held = bit.band(pad, mask) ~= 0
    if held ~= (pressed[name] == true) then mismatches = mismatches + 1 end
  end
  for _, h in ipairs(hazards()) do
    gui.box(h.x - 1, h.y - 1, h.x + 8, h.y + 8, "#FF000040", "red")
    boxes = boxes + 1
  end
  local px, py = memory.readbyte(ADDR.x), memory.readbyte(ADDR.y)
  gui.drawbox(px - 1, py - 1, px + 8, py + 8, "clear", "green")
  local status = string.format("score %d lives %d", memory.readword(ADDR.score), memory.readbyte(ADDR.lives))
  gui.text(8, 12, status, "white", "black")
end)

emu.registerexit(function()
  print(string.format("dodge bot: %d frames, %d mismatches, %d moves checked, %d boxes, %d coins, lives %d",
    frames, mismatches, moves_checked, boxes, coins, memory.readbyte(ADDR.lives)))
end)

while emu.framecount() < 8 do emu.frameadvance() end

while true do
  local px, py = memory.readbyte(ADDR.x), memory.readbyte(ADDR.y)
  pressed = dodgebot.decide(px, py, hazards())
  joypad.set(1, pressed)
  emu.frameadvance()
  frames = frames + 1
  if memory.readbyte(ADDR.state) == 0 then
    local nx, ny = memory.readbyte(ADDR.x), memory.readbyte(ADDR.y)
    local ex, ey = px, py
    if pressed.left then ex = math.max(8, px - 2) elseif pressed.right then ex = math.min(240, px + 2) end
    if pressed.up then ey = math.max(40, py - 2) elseif pressed.down then ey = math.min(208, py + 2) end
    if nx ~= ex or ny ~= ey then
      mismatches = mismatches + 1
      print(string.format("FAIL move from %d,%d expected %d,%d got %d,%d", px, py, ex, ey, nx, ny))
    end
    moves_checked = moves_checked + 1
  end
end
