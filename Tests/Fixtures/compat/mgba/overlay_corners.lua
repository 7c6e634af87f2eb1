-- An mGBA overlay in the style of mGBA's own demo scripts (written for Retrolua's tests): labels anchored to the
-- screen's corners and centre with C.ALIGN, and an image loaded from beside the script through script.dir.
local width, height = canvas:screenWidth(), canvas:screenHeight()
local layer = canvas:newLayer(width, height)
local painter = image.newPainter(layer.image)
painter:setFill(true)
painter:setFillColor(0xFFFF0000)
painter:drawText("BR", width, height, C.ALIGN.BOTTOM | C.ALIGN.RIGHT)
painter:setFillColor(0xFF00FF00)
painter:drawText("MID", width / 2, height / 2, C.ALIGN.VCENTER | C.ALIGN.HCENTER)
painter:setFillColor(0xFF0000FF)
painter:drawText("TL", 0, 0, C.ALIGN.TOP | C.ALIGN.LEFT)
layer:update()
console:log("script " .. tostring(script.path:match("overlay_corners%.lua$") ~= nil) .. " "
  .. tostring(script.dir ~= nil and script.path:sub(1, #script.dir) == script.dir))
local logo = image.load(script.dir .. "/missing.png")
console:log("missing image " .. tostring(logo))
