-- A netplay session's movie (the `record` setting of lua/defaults/netplay.lua): the confirmed inputs
-- of both ports from the state the session started at (a spectator: the state it joined at), written
-- as a `.rlm` that starts from that state when the session ends. Every side writes its own; played back
-- (`retrolua run --play-movie`) each reaches the state the session ended on.

local netplay_movie = {}

local Recorder = {}
Recorder.__index = Recorder

--- A recorder writing to `path` at the end.
function netplay_movie.new(path)
  return setmetatable({ path = path, inputs = {}, count = 0 }, Recorder)
end

--- The session's first frame and its state (copied now: the caller's state is reused).
function Recorder:start(frame, state)
  self.first, self.state, self.inputs, self.count = frame, state:bytes(), {}, 0
end

--- The confirmed inputs of `frame` (each frame once, in order).
function Recorder:add(frame, first_port, second_port)
  if not self.first or frame ~= self.first + self.count then return end
  self.count = self.count + 1
  self.inputs[self.count] = { first_port, second_port }
end

--- Writes the movie: the start state with its inputs, recorded with the movie module, and the game
--- put back as it was. Returns true, or nil and why.
function Recorder:write(buttons_of)
  if not self.state then return nil, "the session never started" end
  if movie.mode() ~= "idle" then return nil, "another movie is active" end
  local present = savestate.create()
  local start, problem = savestate.from_bytes(self.state)
  local ok = start and start:load({ quiet = true })
  if ok then ok, problem = movie.record(self.path, { from = "now", ports = 2, overwrite = true }) end
  if ok then
    for index, input in ipairs(self.inputs) do
      for port = 1, 2 do
        if ok then ok, problem = movie.set_input(index - 1, port, buttons_of(input[port])) end
      end
    end
    local stopped, why = movie.stop()
    if ok then ok, problem = stopped, why end
  end
  present:load({ quiet = true })
  if not ok then return nil, tostring(problem) end
  return true
end

return netplay_movie
