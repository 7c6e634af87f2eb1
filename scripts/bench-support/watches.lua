-- 100 idle watches: memory that never changes (unused RAM of the demo).
for i = 0, 99 do
  event.watch(nil, 0x400 + i * 4, 4, function() error("the watched memory was not supposed to change") end)
end
