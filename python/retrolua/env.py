"""A Gymnasium-style environment over Retrolua's control socket, as stable-retro offers for its games.

    from retrolua.env import RetroluaEnv
    env = RetroluaEnv("build/roms/dodge.nes", scenario="examples/python/dodge_scenario.lua",
                      actions=[{}, {"left": True}, {"right": True}, {"up": True}, {"down": True}])
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(2)

Reward and episode end come from a Lua scenario script (`reward()` and `done()`, evaluated by the
emulator after every frame), as stable-retro's scenario files do. Observations are the RAM (bytes of
the default memory domain) or the screen (RGB bytes, rows top to bottom). `reset` returns to the state
saved right after launch (and `warmup_frames` frames). With gymnasium installed, the class is a `gymnasium.Env` with spaces.
"""

from .control import Retrolua

try:  # Optional: the environment works without gymnasium.
    import gymnasium
    _Base = gymnasium.Env
except ImportError:  # pragma: no cover
    gymnasium = None
    _Base = object


class RetroluaEnv(_Base):
    def __init__(self, rom, scenario, actions, core=None, observation="ram", ram_domain=None, ram_size=None,
                 frameskip=4, max_steps=10_000, warmup_frames=0, **launch):
        self.emu = Retrolua.launch(rom, core=core, scenario=scenario, **launch)
        if warmup_frames:
            self.emu.step(warmup_frames)  # past the game's start-up: episodes begin here
        self.actions = list(actions)
        self.observation_type = observation
        self.frameskip = frameskip
        self.max_steps = max_steps
        info = self.emu.info()
        domains = {d["name"]: d["size"] for d in info["domains"]}
        self.ram_domain = ram_domain or info["default_domain"]
        self.ram_size = ram_size or domains[self.ram_domain]
        self.start_state = self.emu.save_state()
        self.steps = 0
        if gymnasium is not None:
            from gymnasium import spaces
            self.action_space = spaces.Discrete(len(self.actions))
            if observation == "ram":
                self.observation_space = spaces.Box(0, 255, (self.ram_size,), dtype="uint8")

    def _observe(self):
        if self.observation_type == "ram":
            return self.emu.read(0, self.ram_size, self.ram_domain)
        _, _, pixels = self.emu.frame()
        return pixels

    def reset(self, seed=None, options=None):
        """Back to the start; returns (observation, info)."""
        self.emu.load_state(self.start_state)
        self.steps = 0
        return self._observe(), {}

    def step(self, action):
        """Holds actions[action] for `frameskip` frames; (observation, reward, terminated, truncated, info)."""
        reply = self.emu.step(self.frameskip, self.actions[action])
        self.steps += 1
        terminated = bool(reply.get("done", False))
        truncated = not terminated and self.steps >= self.max_steps
        info = {"frame": reply["frame"], "lag": reply["lag"]}
        return self._observe(), float(reply.get("reward", 0.0)), terminated, truncated, info

    def close(self):
        self.emu.close()
