"""Looking at the game beyond one screenshot: a tile grid with coordinates drawn over it (positions in memory
are in game pixels; the grid says where they are on screen), and a capture of the next frames as one contact
sheet or one animated PNG (what moved, in one image)."""

from typing import Any, Callable, List, Optional, Tuple, Union

import numpy as np

from .game import GameSession
from .parsing import MAX_SCALE
from .pictures import animated_png, contact_sheet, png_of, with_grid

MAX_CAPTURED = 16
MAX_EVERY = 600
MAX_PIXELS = 4 << 20  # one capture's image, all frames together


def _pixels(session: GameSession) -> np.ndarray:
    width, height, rgb = session.rgb()
    return np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)


def gridded(session: GameSession, grid: int, scale: int = 2) -> Tuple[int, int, bytes]:
    """(width, height, PNG) of the screen enlarged `scale` times with a line every `grid` game pixels."""
    if isinstance(grid, bool) or not isinstance(grid, int) or not 4 <= grid <= 256:
        raise ValueError('"grid" must be a tile size in game pixels, 4..256 (8 and 16 are common), got %r' % (grid,))
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= MAX_SCALE:
        raise ValueError('"scale" must be an integer in 1..%d, got %r' % (MAX_SCALE, scale))
    picture = with_grid(_pixels(session), grid, scale)
    return picture.shape[1], picture.shape[0], png_of(picture)


def capture(session: GameSession, frames: int = 8, every: int = 4, buttons: Union[List[str], str, None] = None,
            animated: bool = False) -> Tuple[str, bytes]:
    """Runs `frames` × `every` frames with `buttons` held, keeping the screen after each `every`; a summary and
    a PNG: a contact sheet labelled with frame numbers, or an APNG playing them at the game's speed."""
    for name, value, high in (("frames", frames, MAX_CAPTURED), ("every", every, MAX_EVERY)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise ValueError('"%s" must be an integer in 1..%d, got %r' % (name, high, value))
    held = session.buttons(buttons)
    shots: List[np.ndarray] = []
    labels: List[int] = []
    for _ in range(frames):
        result = session.run_frames(every, held)
        if result.get("paused"):
            if not shots:
                raise ValueError("the game is paused by the user: nothing captured; try again once they resume it")
            break
        picture = _pixels(session)
        if shots and picture.shape != shots[0].shape:
            break  # the core changed its resolution: the frames so far
        if picture.size * (len(shots) + 1) > MAX_PIXELS:
            break
        shots.append(picture)
        labels.append(int(result.get("frame") or 0))
    summary = "%d frames, %s to %s, every %d" % (len(shots), labels[0], labels[-1], every)
    if animated:
        fps = float(session.info().get("fps") or 60)
        return "animated PNG of " + summary, animated_png(shots, every, fps)
    return "contact sheet of " + summary + " (left to right, top to bottom)", png_of(contact_sheet(shots, labels))


def register(tool: Callable[..., Any], call: Callable[..., Any], context: Any, image: Any) -> None:
    """The looking tools, on the server's `tool` decorator (`image`: the SDK's Image)."""
    Context = context

    @tool()
    async def capture_frames(ctx: Context, frames: int = 8, every: int = 4,
                             buttons: Optional[Union[List[str], str]] = None, animated: bool = False) -> Any:
        """Run the game and keep what it shows: `frames` pictures (1..16), one every `every` frames (1..600),
        with `buttons` held, as one image — a contact sheet (left to right, each labelled with its frame
        number) or, with animated=true, an animated PNG. Shows motion in one call: capture_frames(frames=8,
        every=2, buttons=["right"]) is 16 frames of walking right."""
        summary, png = await call(ctx, capture, frames, every, buttons, animated)
        return [image(data=png, format="png"), summary]

    del capture_frames  # registered; the name is the tool's


def take_screenshot(session: GameSession, scale: int, grid: Optional[int]) -> Tuple[bytes, str]:
    """The screenshot tool's picture (with the grid when asked) and what it is."""
    if grid:
        width, height, png = gridded(session, grid, scale)
        note = ("%dx%d screenshot with a line every %d game pixels; the labels are x (top) and y (left) in game "
                "pixels" % (width, height, grid))
    else:
        width, height, png = session.screenshot(scale)
        note = "%dx%d screenshot" % (width, height)
    return png, note
