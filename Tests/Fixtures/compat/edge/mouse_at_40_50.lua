-- Retrolua's own API: the host mouse at (40, 50) with the left button held, for the light-gun scripts.
input.set_mouse({ x = 40, y = 50, left = true })
event.on("frame_start", function() input.set_mouse({ x = 40, y = 50, left = true }) end)
