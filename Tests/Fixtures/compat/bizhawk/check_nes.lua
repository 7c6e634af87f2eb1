-- Reads the composited picture (game + the emu overlay) at frame 290, after the HUD drew: our API.
local probes = {
  { "box_fill", 24, 16 }, { "box_left", 8, 16 }, { "box_corner", 40, 24 }, { "box_outside", 41, 25 },
  { "rect_fill", 60, 35 }, { "rect_far_edge", 70, 40 }, { "rect_outside", 71, 41 }, { "line", 128, 200 },
  { "pixel", 250, 5 }, { "ellipse_fill", 160, 50 }, { "polygon_fill", 215, 70 },
}
local regions = {
  { "text_yellow", 100, 100, 48, 8, 0xFFFF00 }, { "pixeltext_black", 100, 120, 24, 8, 0x000000 },
  { "drawtext_orange", 100, 140, 48, 8, 0xFF8000 },
}
local frames = 0  -- frames drawn (loading a state rewinds emu.framecount)
event.on("draw", function()
  frames = frames + 1
  if frames ~= 290 then return end
  local pixels, width = gui.frame("rgb", true)
  local function at(x, y)
    local i = (y * width + x) * 3
    local r, g, b = pixels:byte(i + 1, i + 3)
    return (r << 16) | (g << 8) | b
  end
  for _, p in ipairs(probes) do print(("pixel %s=%06X"):format(p[1], at(p[2], p[3]))) end
  for _, r in ipairs(regions) do
    local n = 0
    for y = r[3], r[3] + r[5] - 1 do
      for x = r[2], r[2] + r[4] - 1 do
        if at(x, y) == r[6] then n = n + 1 end
      end
    end
    print(("count %s=%d"):format(r[1], n))
  end
end)
