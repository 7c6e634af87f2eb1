"""Retrolua from Python.

- `Emulator(rom, core=…)`: an emulator in its own process, driven through the control socket's
  binary door (screen, RAM, sound and states as numpy views of shared memory; see `retrolua.emulator`).
- `retrolua.control.Retrolua`: the JSON-lines client (every request the socket knows, TCP included).
- `make(rom, …)` / `make_vec(rom, n, …)`: Gymnasium environments (`retrolua.env`, `retrolua.vector`;
  the registered ids are in `retrolua.registration`).
- `find_binary()`: which `retrolua` executable is launched.
"""

from ._binary import find_binary
from .emulator import Buttons, Emulator, Snapshot, StepResult
from .errors import RetroluaError


def make(*args, **kwargs):  # type: ignore[no-untyped-def]
    """`retrolua.env.make`: a Gymnasium environment (needs `pip install 'retrolua[gym]'`)."""
    from .env import make as make_env

    return make_env(*args, **kwargs)


def make_vec(*args, **kwargs):  # type: ignore[no-untyped-def]
    """`retrolua.vector.make_vec`: N emulators as one Gymnasium vector environment (gymnasium >= 1.0)."""
    from .vector import make_vec as make_vector

    return make_vector(*args, **kwargs)


# The shipped environments' ids (`gymnasium.make("retrolua/Dodge-v0")`) exist once `retrolua` is
# imported, as other emulators' packages do it; without gymnasium there is nothing to register.
if __import__("importlib.util").util.find_spec("gymnasium") is not None:
    from . import registration as _registers_envs  # noqa: F401

__all__ = ["Buttons", "Emulator", "RetroluaError", "Snapshot", "StepResult", "find_binary", "make", "make_vec"]
__version__ = "0.1.0"
