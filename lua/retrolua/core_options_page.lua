-- The default menu's page of core options (lua/defaults/menu.lua): one item per option, left/right (or
-- return) steps through its values; a change applies live and is saved for the next start.
--
--   local items = require("retrolua.core_options_page").items()

local page = {}

function page.items()
  local items = {}
  for _, option in ipairs(emu.options()) do
    local function shift(step)
      local values = option.values or {}
      if #values == 0 then return end
      local current = 1
      for index, value in ipairs(values) do
        if value == option.value then current = index end
      end
      local value = values[(current - 1 + step) % #values + 1]
      -- Changed live and kept for the next start (the option file the start reads).
      local now, problem = emu.option(option.key, value, { save = true })
      if now then
        option.value = now
      else
        -- Not kept (a file that cannot be written): changed live all the same, and said.
        now = emu.option(option.key, value)
        if now then option.value = now end
        emu.message("core option " .. option.key .. ": " .. tostring(problem))
      end
    end
    items[#items + 1] = { label = option.description or option.key, value = function() return option.value end,
                          left = function() shift(-1) end, right = function() shift(1) end,
                          select = function() shift(1) end }
  end
  if #items == 0 then items[1] = { label = "the core has no options" } end
  return items
end

return page
