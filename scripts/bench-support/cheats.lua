-- 100 RAM cheats applied after every frame (the benchmark of issue 7): set, increase and a condition pair.
for i = 0, 96 do
  cheats.add_ram({ address = 0x300 + i, value = i })
end
cheats.add_ram({ address = 0x380, value = 1, type = "increase" })
cheats.add_ram({ address = 0x381, value = 0, type = "if_equal" })
cheats.add_ram({ address = 0x382, value = 7, size = 16, repeat_count = 4 })
