"""Preprocessing in the emulator process (`Emulator.preprocess`, the env's max_pool/grayscale/resize/
frame_stack/noop_max/sticky_actions): every observation equals a numpy reference applied to the raw
frames of the same frames, run by an emulator without preprocessing on the same inputs (Dodge on
nestopia); the seeded no-op starts and sticky actions repeat per seed and differ across seeds; bad
options are refused with their name.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q Tests/python/test_preprocessing.py
"""

import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import retrolua  # noqa: E402
from retrolua import _protocol as wire  # noqa: E402
from retrolua.errors import RetroluaError  # noqa: E402

DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
SCENARIO = os.path.join(ROOT, "examples", "python", "dodge_scenario.lua")
MASK64 = (1 << 64) - 1

pytestmark = pytest.mark.skipif(not os.path.exists(DODGE), reason="build/roms/dodge.nes is built by scripts/roms")


# -- the numpy reference ------------------------------------------------------------------------

class SplitMix64:
    """The emulator's generator, written again."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        value = self.state
        value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
        return value ^ (value >> 31)


def grayscale(rgb: np.ndarray) -> np.ndarray:
    """OpenCV's fixed-point luma."""
    pixels = rgb.astype(np.int64)
    return ((pixels[..., 0] * 4899 + pixels[..., 1] * 9617 + pixels[..., 2] * 1868 + 8192) >> 14).astype(np.uint8)


def overlaps(source: int, destination: int) -> np.ndarray:
    """(destination, source) overlaps: source pixel s spans [s·destination, (s+1)·destination), output
    d spans [d·source, (d+1)·source)."""
    out = np.arange(destination)[:, None]
    src = np.arange(source)[None, :]
    ends = np.minimum((out + 1) * source, (src + 1) * destination)
    starts = np.maximum(out * source, src * destination)
    return np.maximum(ends - starts, 0).astype(np.int64)


def resize(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """Area resize, exact: Σ overlap_x·overlap_y·value / (W·H), rounded half up."""
    src_h, src_w = image.shape[:2]
    across, down = overlaps(src_w, width), overlaps(src_h, height)
    planes = image[..., None] if image.ndim == 2 else image
    out = np.stack([down @ planes[..., c].astype(np.int64) @ across.T for c in range(planes.shape[2])], axis=-1)
    divisor = src_w * src_h
    result = ((2 * out + divisor) // (2 * divisor)).astype(np.uint8)
    return result[..., 0] if image.ndim == 2 else result


class Reference:
    """The preprocessing over a raw emulator stepped a frame at a time."""

    def __init__(self, emu: retrolua.Emulator, options: dict) -> None:
        self.emu, self.options = emu, options
        self.skip = options.get("frameskip", 1)
        self.threshold = int(options.get("sticky_actions", 0.0) * 2.0 ** 53)
        self.stack: list = []
        self.random = SplitMix64(0)
        self.previous = 0

    def process(self, frames: list) -> np.ndarray:
        image = frames[-1]
        if self.options.get("max_pool") and len(frames) >= 2:
            image = np.maximum(frames[-2], frames[-1])
        if self.options.get("grayscale"):
            image = grayscale(image)
        if self.options.get("resize"):
            image = resize(image, *self.options["resize"])
        return image

    def frame(self, mask: int) -> "tuple[np.ndarray, float, bool]":
        result = self.emu.step(1, mask, screen=True)
        return self.emu.last_screen().copy(), result.reward, result.done

    def episode_start(self, seed: int) -> "tuple[np.ndarray, int]":
        self.random = SplitMix64(seed)
        noop_max = self.options.get("noop_max", 0)
        count = 1 + self.random.next() % noop_max if noop_max else 1
        for _ in range(count):
            screen, _, _ = self.frame(0)
        self.previous = 0
        self.stack = [self.process([screen])] * self.options.get("frame_stack", 1)
        return np.stack(self.stack), count

    def step(self, mask: int) -> "tuple[np.ndarray, float, bool, int]":
        frames, reward, done = [], 0.0, False
        for _ in range(self.skip):
            if self.threshold and self.random.next() >> 11 < self.threshold:
                held = self.previous
            else:
                held = self.previous = mask
            screen, score, done = self.frame(held)
            frames.append(screen)
            reward += score
            if done:
                break
        image = self.process(frames if len(frames) == self.skip else frames[-1:])
        self.stack = self.stack[1:] + [image]
        return np.stack(self.stack), reward, done, len(frames)


# -- tests --------------------------------------------------------------------------------------

CONFIGS = [
    dict(frameskip=4, max_pool=True, grayscale=True, resize=(84, 84), frame_stack=4, noop_max=30, sticky_actions=0.25),
    dict(frameskip=3, max_pool=True, grayscale=False, resize=(80, 61), frame_stack=3, noop_max=7, sticky_actions=0.5),
    dict(frameskip=2, grayscale=False, frame_stack=2),
    dict(frameskip=1, grayscale=True, resize=(300, 250)),
]


def moves(emu: retrolua.Emulator, count: int, seed: int) -> list:
    """Random Dodge moves as masks (a fixed sequence per seed)."""
    choices = [emu.mask(m) for m in ([], ["left"], ["right"], ["up"], ["down"], ["left", "up"])]
    return [choices[i] for i in np.random.default_rng(seed).integers(0, len(choices), count)]


@pytest.mark.parametrize("options", CONFIGS, ids=["atari", "colour-odd-size", "native-size", "upscale"])
def test_observations_equal_the_numpy_reference_on_the_same_frames(options):
    with retrolua.Emulator(DODGE, core="nestopia", scenario=SCENARIO) as processed, \
            retrolua.Emulator(DODGE, core="nestopia", scenario=SCENARIO) as raw:
        processed.preprocess(**options)
        reference = Reference(raw, options)
        for episode, seed in enumerate((11, 12)):
            result = processed.processed_step(episode_start=True, seed=seed)
            expected, count = reference.episode_start(seed)
            assert result.frames == count and result.frame == raw.step(0).frame
            observation = processed.last_observation()
            assert observation.shape == expected.shape and observation.dtype == np.uint8
            assert np.array_equal(observation, expected)
            for mask in moves(processed, 25, seed):
                result = processed.processed_step(mask)
                expected, reward, done, frames = reference.step(mask)
                assert (result.frames, result.done, result.reward) == (frames, done, pytest.approx(reward))
                assert np.array_equal(processed.last_observation(), expected)
                if done:
                    break
        # The raw screen is still there for the asking, and the next step rewrites the whole stack.
        assert np.array_equal(processed.screen(), raw.screen())


def run(seed: int, options: dict, steps: int = 12) -> "tuple[list, list]":
    with retrolua.Emulator(DODGE, core="nestopia") as emu:
        emu.preprocess(**options)
        frames = [emu.processed_step(episode_start=True, seed=seed).frame]
        observations = [emu.last_observation().copy()]
        for mask in moves(emu, steps, 0):
            frames.append(emu.processed_step(mask).frame)
            observations.append(emu.last_observation().copy())
        # A seed given with preprocess and no reseed afterwards counts too.
        return frames, observations


def test_noop_starts_and_sticky_actions_repeat_per_seed_and_differ_across_seeds():
    options = dict(frameskip=4, grayscale=True, resize=(84, 84), frame_stack=2, noop_max=30, sticky_actions=0.25)
    first, again, other = run(5, options), run(5, options), run(6, options)
    assert first[0] == again[0] and all(np.array_equal(a, b) for a, b in zip(first[1], again[1]))
    assert first[0][0] != other[0][0]  # another number of no-op frames
    assert SplitMix64(5).next() % 30 != SplitMix64(6).next() % 30
    sticky = dict(frameskip=4, sticky_actions=0.5, grayscale=True, resize=(84, 84))
    one, two = run(1, sticky, 30), run(2, sticky, 30)  # one no-op frame each: only stickiness differs
    assert one[0] == two[0]
    assert any(not np.array_equal(a, b) for a, b in zip(one[1], two[1]))


def test_the_vector_env_is_preprocessed_and_repeats_per_seed():
    gymnasium = pytest.importorskip("gymnasium")
    options = dict(core="nestopia", actions=retrolua.env.DODGE_ACTIONS, frameskip=4, max_pool=True, grayscale=True,
                   resize=(84, 84), frame_stack=4, noop_max=30, sticky_actions=0.25)
    envs = retrolua.make_vec(DODGE, num_envs=2, **options)
    try:
        assert envs.single_observation_space == gymnasium.spaces.Box(0, 255, (4, 84, 84), np.uint8)
        actions = [np.array([a, (a + 2) % 5]) for a in (1, 2, 3, 4, 0, 1, 1, 2)]
        runs = []
        for _ in range(2):
            batches = [envs.reset(seed=7)[0].copy()]
            for action in actions:
                batches.append(envs.step(action)[0].copy())
            runs.append(batches)
        assert all(np.array_equal(a, b) for a, b in zip(*runs))
        assert batches[-1].shape == (2, 4, 84, 84) and envs.observation_space.contains(batches[-1])
        assert not np.array_equal(batches[-1][:, 0], batches[-1][:, 3])  # the stack moves
    finally:
        envs.close()
    env = retrolua.make(DODGE, render_mode="rgb_array", **options)
    try:
        from gymnasium.utils.env_checker import check_env
        check_env(env, skip_render_check=True)
        observation, _ = env.reset(seed=3)
        assert observation.shape == (4, 84, 84) and env.render().shape == (224, 256, 3)
        assert np.array_equal(env.step(0)[0][:3], observation[1:])  # oldest first: the stack shifts
    finally:
        env.close()


def test_bad_options_are_refused_with_their_name():
    with retrolua.Emulator(DODGE, core="nestopia") as emu:
        with pytest.raises(RetroluaError, match="preprocess\\(\\) first"):
            emu.processed_step()
        for options, word in [(dict(frameskip=0), "frameskip"), (dict(frameskip=65), "frameskip"),
                              (dict(resize=(0, 84)), "resize"), (dict(resize=(84,)), "resize"),
                              (dict(resize=(84, 1025)), "resize"), (dict(frame_stack=17), "frame_stack"),
                              (dict(noop_max=-1), "noop_max"), (dict(sticky_actions=1.0), "sticky_actions"),
                              (dict(seed=-1), "seed")]:
            with pytest.raises(ValueError, match=word):
                emu.preprocess(**options)
        # The host checks every field itself (a client that skips the checks above).
        for fields, word in [((0, 0, 0, 0, 0, 1, 0, 0.0, 0), "frameskip must be 1…64"),
                             ((1, 2, 0, 0, 0, 1, 0, 0.0, 0), "max_pool must be 0…1"),
                             ((1, 0, 0, 84, 0, 1, 0, 0.0, 0), "both 0"),
                             ((1, 0, 0, 0, 0, 99, 0, 0.0, 0), "frame_stack must be 1…16"),
                             ((1, 0, 0, 0, 0, 1, 0, float("nan"), 0), "sticky_actions"),
                             ((1, 0, 0, 1024, 1024, 16, 0, 0.0, 0), "exceed the shared screen area")]:
            with pytest.raises(RetroluaError, match=word):
                emu._call(wire.PREPROCESS, payload=wire.PREPROCESS_OPTIONS.pack(*fields))
        with pytest.raises(RetroluaError, match="44 bytes"):
            emu._call(wire.PREPROCESS, payload=b"\0" * 8)
        with pytest.raises(RetroluaError, match="processed steps only"):
            emu._call(wire.STEP, wire.STEP_EPISODE, 1)
        emu.preprocess(frameskip=4, grayscale=True)
        with pytest.raises(RetroluaError, match="runs the frame skip \\(4\\)"):
            emu._call(wire.STEP, wire.STEP_PROCESSED, 3)
        with pytest.raises(RetroluaError, match="in place of the screen"):
            emu._call(wire.STEP, wire.STEP_PROCESSED | wire.STEP_SCREEN)
        with pytest.raises(ValueError, match="no buttons"):
            emu.processed_step(["left"], episode_start=True)
        assert emu.processed_step(["left"]).frames == 4 and emu.last_observation().shape == (1, 224, 256)
        # A refused step changes nothing: its seed is not taken.
        emu.preprocess(frameskip=4, grayscale=True, noop_max=30, seed=5)
        with pytest.raises(RetroluaError, match="payload must be empty"):
            emu._call(wire.STEP, wire.STEP_PROCESSED | wire.STEP_SEED | 0x100, 0, 99, payload=b"\1")
        assert emu.processed_step(episode_start=True).frames == 1 + SplitMix64(5).next() % 30
        assert 1 + SplitMix64(5).next() % 30 != 1 + SplitMix64(99).next() % 30
    for options, word in [(dict(obs="ram", grayscale=True), "obs='screen'"),
                          (dict(crop=(0, 8, 0, 0), frame_stack=2), "no crop"),
                          (dict(frame_stack=0), "frame_stack")]:
        with pytest.raises(ValueError, match=word):
            retrolua.make(DODGE, core="nestopia", **options)
