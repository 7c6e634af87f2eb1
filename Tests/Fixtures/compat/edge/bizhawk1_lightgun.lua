-- BizHawk 1.x style: a light-gun crosshair HUD. console.output (1.x's console.log), gui.text with 1.x's argument
-- order (x, y, message, background, forecolor, anchor), and the zapper read through joypad.get().
local shots = 0
while true do
  local pad = joypad.get()
  local x, y = pad["P2 Zapper X"], pad["P2 Zapper Y"]
  if pad["P2 Fire"] then shots = shots + 1 end
  gui.text(2, 2, "GUN", "blue", "red", "bottomright")
  gui.drawLine(x - 3, y, x + 3, y, "yellow")
  if emu.framecount() == 8 then
    console.output("zapper " .. tostring(x) .. "," .. tostring(y) .. " shots " .. shots
      .. " port2 " .. tostring(joypad.get(2)["Zapper X"]))
  end
  joypad.set(pad)  -- passed back whole, as input-display scripts do: no warning for the zapper's own values
  emu.frameadvance()
end
