-- Reads the composited Game Boy picture after the tracker drew, on its 240th frame: our API.
local frames = 0
event.on("draw", function()
  frames = frames + 1
  if frames ~= 240 then return end
  local pixels, width, height = gui.frame("rgb", true)
  local function at(x, y)
    local i = (y * width + x) * 3
    local r, g, b = pixels:byte(i + 1, i + 3)
    return (r << 16) | (g << 8) | b
  end
  local probes = { { "rect_fill", 10, 10 }, { "rect_edge", 34, 16 }, { "box_edge", 140, 125 },
    { "box_inside", 145, 125 }, { "line", 80, 70 } }
  for _, p in ipairs(probes) do print(("pixel %s=%06X"):format(p[1], at(p[2], p[3]))) end
  local red, minx, miny = 0, width, height
  for y = 0, height - 1 do
    for x = 0, width - 1 do
      if at(x, y) == 0xFF0000 then
        red = red + 1
        if x < minx then minx = x end
        if y < miny then miny = y end
      end
    end
  end
  print(("count text_red=%d"):format(red))
  print(("corner text=%d,%d"):format(minx, miny))
end)
