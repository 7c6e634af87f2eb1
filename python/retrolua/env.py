"""Gymnasium environments over `retrolua.Emulator` (needs `pip install retrolua[gym]`).

    import retrolua
    env = retrolua.make("build/roms/demo.nes", core="nestopia", scenario="examples/python/demo_scenario.lua",
                        obs="ram", actions=[[], ["right"], ["left"]])
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(1)

Reward and episode end come from the Lua scenario (`reward()` and `done()`, evaluated by the emulator
after every frame); without one the reward is 0 and episodes end only by truncation (`max_steps`).
Observations: `"screen"` (RGB, `Box(0, 255, (H, W, 3), uint8)`), `"ram"` (the default memory domain,
`Box(0, 255, (N,), uint8)`) or `"both"` (a `Dict` of the two). Actions: `MultiBinary(16)` (one entry per
RetroPad button, `Emulator.buttons` order) or, with `actions=[combo, …]`, `Discrete(len(actions))`.
Episodes start from `state` (a savestate file or its bytes: a Retrolua state, or a bare core state
such as a stable-retro `.state`, gzipped or not) or else from the state saved after `warmup_frames`
(at least 1) frames, then a random number of no-op frames (0…`noop_max`) drawn from `np_random`, so
`reset(seed=…)` decides the start. `info` carries `frame`, `lag` and the table the scenario's
`info()` returns (its declared variables: score, lives, …). `crop=(x, y, width, height)` cuts screen
observations (a view of the frame; 0 or past the edge: to the edge).

Atari-style preprocessing, done in the emulator process (`Emulator.preprocess`): `max_pool=True`,
`grayscale=True`, `resize=(width, height)`, `frame_stack=N` or `sticky_actions=p` (any of them turns it
on; then `frameskip` and `noop_max` are the emulator's too) make screen observations
`Box(0, 255, (N, height, width), uint8)` (`(…, 3)` without grayscale): each step holds the action
`frameskip` frames, each frame keeping the last frame's buttons with probability p, takes the max of the
last two frames, their luma, the area resize, and stacks the last N, oldest first; an episode starts
with a seeded 1…`noop_max` no-op frames (one without), its stack filled with that frame.

`actions="all"`, `"filtered"`, `"discrete"` or `"multi_discrete"` give stable-retro's action spaces:
its MultiBinary of the system's own buttons (filtered: a group's buttons dropped unless allowed
together) and its indices over the system's action groups (or an integration scenario's "actions").

`record=FOLDER` records every episode as a movie from its start state (`ROM-N-000000.rlm`, …: a .bk2
or .fm2 cannot carry a start state of ours), which `retrolua movie play` replays frame for frame.

`step(action)` is `finish_step(send_step(action))`: the vector env sends every emulator its step
before finishing any, then copies each observation into its batch with `store_observation`. The
registered ids (`retrolua/Dodge-v0`, …) live in `retrolua.registration`.

`integration=FOLDER` (or a name such as "Airstriker-Genesis-v0", found as `retrolua.integration.find`
says) runs a stable-retro game integration instead of a Lua scenario (see
`retrolua.integration`): `scenario` then names its scenario (default "scenario"), `state` one of its
states (default: its default state) and the scenario's crop applies unless `crop` is given.
"""

from __future__ import annotations

import itertools
import os
import shutil
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as error:  # pragma: no cover
    raise ImportError("retrolua.env needs gymnasium: pip install 'retrolua[gym]'") from error

from . import _protocol as wire
from . import actions as action_sets
from . import integration as integrations
from ._integration_scenario import integration_scenario
from ._observation import KINDS, Observation, Observer, crop_slices
from .emulator import Buttons, Emulator, PendingStep, Snapshot, StepResult


def _check_options(obs: str, render_mode: Optional[str], frameskip: int, sticky: float, max_steps: int,
                   noop_max: int, actions: Any) -> None:
    if obs not in KINDS:
        raise ValueError("obs is 'screen', 'ram' or 'both', got %r" % (obs,))
    if render_mode not in (None, "rgb_array"):
        raise ValueError("render_mode is None or 'rgb_array'")
    if frameskip < 1 or not 0.0 <= sticky < 1.0 or max_steps < 1 or noop_max < 0:
        raise ValueError("frameskip >= 1, 0 <= sticky < 1, max_steps >= 1, noop_max >= 0")
    if isinstance(actions, str) and actions not in ("all", "filtered", "discrete", "multi_discrete"):
        raise ValueError("actions is a list of combinations, None, 'all', 'filtered', 'discrete' or "
                         "'multi_discrete', got %r" % (actions,))


class RetroluaEnv(gymnasium.Env):
    """One emulator as a Gymnasium environment (see the module's doc)."""

    _serials = itertools.count()  # names recorded episodes apart when several envs record to one folder

    metadata = {"render_modes": ["rgb_array"], "render_fps": 60}

    def __init__(
        self,
        rom: str,
        scenario: Optional[str] = None,
        actions: Optional[Union[str, Sequence[Buttons]]] = None,
        core: Optional[str] = None,
        obs: str = "screen",
        frameskip: int = 1,
        sticky: float = 0.0,
        max_steps: int = 10_000,
        noop_max: int = 0,
        warmup_frames: int = 1,
        render_mode: Optional[str] = None,
        state: Optional[Union[str, bytes]] = None,
        crop: Optional[Sequence[int]] = None,
        integration: Optional[str] = None,
        record: Optional[str] = None,
        max_pool: bool = False,
        grayscale: bool = False,
        resize: Optional[Sequence[int]] = None,
        frame_stack: int = 1,
        sticky_actions: Optional[float] = None,
        **emulator: Any,
    ) -> None:
        _check_options(obs, render_mode, frameskip, sticky, max_steps, noop_max, actions)
        # Preprocessing in the emulator process: frameskip, noop_max and sticky_actions go there too.
        self._processed = bool(max_pool or grayscale or resize is not None or frame_stack != 1
                               or sticky_actions is not None)
        if self._processed and (obs != "screen" or crop is not None or sticky):
            raise ValueError("max_pool, grayscale, resize, frame_stack and sticky_actions need obs='screen', "
                             "no crop and sticky=0 (sticky_actions is their per-frame stickiness)")
        groups = None  # a scenario's own action groups (stable-retro's "actions")
        scratch = None  # the folder of an integration's scenario file, removed once the emulator read it
        if integration is not None:
            scenario, state, crop, groups = integration_scenario(rom, integration, scenario, state, crop)
            scratch = os.path.dirname(scenario)
            emulator["args"] = list(emulator.get("args", ())) + integrations.Integration.core_options(core)
        self._record = None if record is None else os.path.join(
            os.fspath(record), "%s-%d-%%06d.rlm" % (os.path.splitext(os.path.basename(rom))[0],
                                                   next(RetroluaEnv._serials)))
        self._episodes, self._recording = 0, False
        if crop is not None and (len(crop) != 4 or any(int(c) < 0 for c in crop)):
            raise ValueError("crop is (x, y, width, height), none negative, got %r" % (crop,))
        try:
            self.emu = Emulator(rom, core=core, scenario=scenario, **emulator)
        finally:
            if scratch is not None:  # the emulator reads its scenario as it starts
                shutil.rmtree(scratch, ignore_errors=True)
        self.obs_type, self.frameskip, self.sticky = obs, frameskip, sticky
        self.max_steps, self.noop_max, self.render_mode = max_steps, noop_max, render_mode
        # One rendered frame a step: a video recorder (RecordVideo) plays steps at the game's speed.
        fps = float(self.emu.info.get("fps", 60)) or 60.0
        self.metadata = dict(self.metadata, render_fps=fps / frameskip)
        self._start = self._start_state(warmup_frames, state)
        self._observe_as(obs, crop, max_pool=max_pool, grayscale=grayscale, resize=resize, frame_stack=frame_stack,
                         noop_max=noop_max, sticky_actions=sticky_actions)
        self._masks: Optional[np.ndarray] = None
        self._kind = None  # stable-retro's action space by its name, when one was asked for
        self._groups: list = []  # its action groups: multi_discrete's choices, filtered's filter
        self._system_buttons: list = []
        if isinstance(actions, str):
            self._stable_retro_actions(actions, rom, groups)
        else:
            self._listed_actions(actions)
        self._bits = (1 << np.arange(len(self.emu.buttons))).astype(np.uint16)
        self._last_mask = 0
        self._steps = 0
        self._at_start = False

    def _start_state(self, warmup_frames: int, state: Optional[Union[str, bytes]]) -> Snapshot:
        """The episodes' start: after the warm-up frames, or the state given (a path or bytes, gzipped or not)."""
        self.emu.step(max(1, warmup_frames), screen=True, ram=self.emu.default_domain is not None)
        if state is not None:
            if not isinstance(state, (bytes, bytearray)):
                with open(state, "rb") as file:
                    state = file.read()
            self.emu.load_state(integrations.gunzip_state(bytes(state)))
            self.emu.step(1, 0, screen=True, ram=self.emu.default_domain is not None)  # draws the state
        return self.emu.snapshot()

    def _observe_as(self, obs: str, crop: Optional[Sequence[int]], *, max_pool: bool, grayscale: bool,
                    resize: Optional[Sequence[int]], frame_stack: int, noop_max: int,
                    sticky_actions: Optional[float]) -> None:
        """The observation space and the observer: the screen (cropped, or preprocessed in the emulator
        process), the RAM or both."""
        frameskip = self.frameskip
        cut = crop_slices(crop, self.emu.last_screen().shape)
        height, width = self.emu.last_screen()[cut].shape[:2]
        screen_space = spaces.Box(0, 255, (height, width, 3), dtype=np.uint8)
        ram_size = len(self.emu.last_ram())
        if obs != "screen" and ram_size == 0:
            raise ValueError("the core exposes no memory: use obs='screen'")
        ram_space = spaces.Box(0, 255, (ram_size,), dtype=np.uint8)
        if self._processed:
            try:
                self.emu.preprocess(frameskip, max_pool=max_pool, grayscale=grayscale, resize=resize,
                                    frame_stack=frame_stack, noop_max=noop_max, sticky_actions=sticky_actions or 0.0)
            except BaseException:
                self.emu.close()
                raise
            height, width = (int(resize[1]), int(resize[0])) if resize is not None else (height, width)
            shape = (int(frame_stack), height, width) + (() if grayscale else (3,))
            screen_space = spaces.Box(0, 255, shape, dtype=np.uint8)
        # A load draws nothing: a reset without no-ops shows the start's own frame, kept here.
        self._observer = Observer(self.emu, obs, cut, self.emu.last_screen().copy(), self.emu.last_ram().copy(),
                                  self._processed)
        self.observation_space = {"screen": screen_space, "ram": ram_space,
                                  "both": spaces.Dict({"screen": screen_space, "ram": ram_space})}[obs]

    def _listed_actions(self, actions: Optional[Sequence[Buttons]]) -> None:
        """The action space of a list of button combinations (Discrete), or of every button (MultiBinary)."""
        if actions is None:
            self.action_space = spaces.MultiBinary(len(self.emu.buttons))
        else:
            self.action_space = spaces.Discrete(len(actions))
            self._masks = np.array([self.emu.mask(a) for a in actions], dtype=np.uint16)

    def _stable_retro_actions(self, kind: str, rom: str, groups: Optional[list]) -> None:
        """stable-retro's action spaces over the system's buttons and action groups: "all" and
        "filtered" (MultiBinary, a button of the system each, in its order; filtered drops a group's
        buttons unless they are one of its combinations), "discrete" (one index for every combination
        of one choice per group, the first group varying fastest), "multi_discrete" (a choice per group)."""
        self._kind, self._groups = kind, action_sets.action_groups(rom, groups)
        self._system_buttons = action_sets.buttons(rom)
        if kind == "discrete":
            masks = [0]
            for group in self._groups:
                masks = [mask | choice for choice in group for mask in masks]
            self.action_space = spaces.Discrete(len(masks))
            self._masks = np.array(masks, dtype=np.uint16)
        elif kind == "multi_discrete":
            self.action_space = spaces.MultiDiscrete([len(group) for group in self._groups])
        else:  # "all", "filtered": the system's buttons only (its width, as stable-retro's)
            self.action_space = spaces.MultiBinary(len(self._system_buttons))

    @property
    def em(self) -> Emulator:
        """The emulator (stable-retro's name: `env.em.get_state()`, `env.em.set_state(state)`)."""
        return self.emu

    def get_ram(self) -> np.ndarray:
        """The default memory domain now, a copy (stable-retro's `get_ram`)."""
        return self.emu.ram().copy()

    @property
    def buttons(self) -> list:
        """The button names, by RetroPad id: the system's own (stable-retro's, "" where it has none)
        with stable-retro's action spaces, else the RetroPad's."""
        return self._system_buttons or list(self.emu.buttons)

    # -- for vector envs that step many envs' emulators at once (retrolua._lanes) ------------------

    @property
    def processed(self) -> bool:
        """Whether the emulator preprocesses the observations (max_pool, grayscale, resize, frame_stack)."""
        return self._processed

    @property
    def crop_slices(self) -> Tuple[slice, slice]:
        """The rows and columns of the screen this env observes."""
        return self._observer.crop

    def step_request(self) -> Tuple[int, int]:
        """An ordinary step's binary-door flags and frame count (one mask held; the caller adds the port
        bits): what `send_step` sends when no stickiness is drawn here."""
        if self._processed:
            return wire.STEP_PROCESSED, 0
        want_screen = self.obs_type != "ram" or self.render_mode == "rgb_array"
        return (wire.STEP_SCREEN if want_screen else 0) | (wire.STEP_RAM if self.obs_type != "screen" else 0), \
            self.frameskip

    def masks(self, actions: Any) -> np.ndarray:
        """The RetroPad masks of a batch of actions (one per row), as `step` turns each into buttons."""
        if self._masks is not None:
            return self._masks[np.asarray(actions, dtype=np.intp)]
        if self._kind is None:
            pressed = np.asarray(actions).astype(bool)[:, : len(self._bits)]
            return (pressed * self._bits[: pressed.shape[1]]).sum(axis=1).astype(np.uint16)
        return np.array([self._mask(action) for action in actions], dtype=np.uint16)

    def count_step(self, terminated: bool) -> bool:
        """A step this env's emulator ran for a vector env (through its batch lane): counted as `step`
        counts it; whether it truncates the episode (`max_steps`)."""
        self._steps, self._at_start = self._steps + 1, False
        return not terminated and self._steps >= self.max_steps

    def get_action_meaning(self, action: Any) -> list:
        """The names of the buttons `action` presses (stable-retro's `get_action_meaning`)."""
        mask, names = self._mask(action), self.buttons
        return [names[bit] for bit in range(len(names)) if mask >> bit & 1 and names[bit]]

    def _mask(self, action: Any) -> int:
        action_sets.check_actions(self.action_space, action)  # an index of -1 is refused, not the last one
        if self._masks is not None:
            return int(self._masks[int(action)])
        if self._kind == "multi_discrete":
            return int(sum(group[int(choice)] for group, choice in zip(self._groups, action)))
        width = len(self._system_buttons) if self._kind else len(self._bits)
        pressed = np.asarray(action).astype(bool)[:width]
        mask = int(self._bits[: len(pressed)][pressed].sum())
        return action_sets.filter_mask(mask, self._groups) if self._kind == "filtered" else mask

    def _observe(self, at_start: bool = False) -> Observation:
        return self._observer.copy(at_start)

    def _run(self, masks: Optional[np.ndarray], frames: int) -> StepResult:
        return self.emu.finish_step(self._send_frames(masks, frames))

    def _send_frames(self, masks: Optional[np.ndarray], frames: int) -> PendingStep:
        """Sends the step request (no-ops when `masks` is None), for `Emulator.finish_step`."""
        want_screen = self.obs_type != "ram" or self.render_mode == "rgb_array"
        want_ram = self.obs_type != "screen"
        if masks is None:
            return self.emu.send_step(frames, 0, screen=want_screen, ram=want_ram)
        return self.emu.send_step(frames, actions=masks, screen=want_screen, ram=want_ram)

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[Any, Dict[str, Any]]:
        """Back to the start state, then 0…noop_max random no-op frames; (observation, info)."""
        super().reset(seed=seed)
        if self._recording:
            self.emu.stop_movie()
            self._recording = False
        self.emu.restore(self._start)
        if self._record is not None:  # each episode a movie from its start state, no-ops included
            self.emu.record_movie(self._record % self._episodes)
            self._episodes, self._recording = self._episodes + 1, True
        if self._processed:  # the emulator's seeded no-ops (or one frame), the stack filled
            result = self.emu.processed_step(episode_start=True, seed=int(self.np_random.integers(0, 2**63 - 1)))
            self._steps, self._at_start = 0, False
            return self._observe(), dict(result.info, frame=result.frame, lag=result.lag)
        noops = int(self.np_random.integers(0, self.noop_max + 1)) if self.noop_max else 0
        result = self._run(None, noops)
        self._steps, self._last_mask, self._at_start = 0, 0, noops == 0
        return self._observe(at_start=noops == 0), dict(result.info, frame=result.frame, lag=result.lag)

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """Holds the action for `frameskip` frames (each frame keeps the previous action with
        probability `sticky`); (observation, reward, terminated, truncated, info)."""
        return self.finish_step(self.send_step(action))

    def send_step(self, action: Any) -> PendingStep:
        """The request half of `step`: sends it without waiting (the vector env sends to every
        emulator, then finishes each). Pass what it returns to `finish_step`."""
        mask = self._mask(action)
        if self._processed:
            return self.emu.send_processed_step(mask)
        masks = np.full(self.frameskip, mask, dtype=np.uint16)
        if self.sticky:
            previous = self._last_mask
            for index, repeat in enumerate(self.np_random.random(self.frameskip) < self.sticky):
                if repeat:
                    masks[index] = previous
                previous = int(masks[index])
        self._last_mask = int(masks[-1])
        return self._send_frames(masks, self.frameskip)

    def finish_step(self, pending: PendingStep, observe: bool = True
                    ) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """The reply half of `step`: what `step` returns (the observation is None without `observe`:
        the vector env copies it with `store_observation`)."""
        result = self.emu.finish_step(pending)
        self._steps, self._at_start = self._steps + 1, False
        truncated = not result.done and self._steps >= self.max_steps
        info = dict(result.info, frame=result.frame, lag=result.lag)
        observation = self._observe() if observe else None
        return observation, float(result.reward), bool(result.done), truncated, info

    def store_observation(self, batch: Any, index: int) -> None:
        """Copies the current observation (what `reset` or `finish_step` would return) straight from
        shared memory into row `index` of `batch` (arrays shaped as `observation_space` with a leading
        batch axis; a dict of them for obs="both")."""
        self._observer.store(batch, index, self._at_start)

    def render(self) -> Optional[np.ndarray]:
        """The last frame as RGB (render_mode "rgb_array")."""
        if self.render_mode != "rgb_array":
            return None
        if self._processed:  # the shared screen holds observations: the frame is asked for
            return self.emu.screen().copy()
        return (self._observer.start_screen if self._at_start else self.emu.last_screen()).copy()

    def close(self) -> None:
        if hasattr(self, "emu"):
            if getattr(self, "_recording", False) and not self.emu.closed:
                self.emu.stop_movie()  # the last episode's movie is written too
                self._recording = False
            self.emu.close()


def make(rom: str, core: Optional[str] = None, scenario: Optional[str] = None, obs: str = "screen",
         actions: Optional[Union[str, Sequence[Buttons]]] = None, **options: Any) -> RetroluaEnv:
    """A Gymnasium environment for `rom` (see RetroluaEnv for `frameskip`, `sticky`, `max_steps`,
    `noop_max`, `warmup_frames`, `render_mode`, `state`, `crop`, `integration`, the preprocessing —
    `max_pool`, `grayscale`, `resize`, `frame_stack`, `sticky_actions` — and the Emulator's own arguments)."""
    return RetroluaEnv(rom, scenario=scenario, actions=actions, core=core, obs=obs, **options)


#: Dodge's moves as a Discrete action list: stay, the four directions.
DODGE_ACTIONS = [[], ["left"], ["right"], ["up"], ["down"]]
