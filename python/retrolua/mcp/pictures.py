"""Pictures for the agent: PNG encoding (screenshots drawn over here, and a retrolua without PNG frames),
nearest-neighbour scaling, a tile grid with its coordinates drawn over a screenshot, and several frames as one
contact sheet or one animated PNG (APNG: a PNG every viewer shows, animated where it can)."""

import struct
import zlib
from typing import List, Sequence

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
GRID_COLOR = np.array([255, 0, 255], dtype=np.uint16)  # magenta: rare in games, seen on any background
LABEL_COLOR = np.array([255, 255, 0], dtype=np.uint8)
MARGIN_COLOR = np.array([24, 24, 24], dtype=np.uint8)

#: Digits 3 pixels wide and 5 high, a row of 3 bits each (most significant: the left column).
DIGITS = {"0": (7, 5, 5, 5, 7), "1": (2, 6, 2, 2, 7), "2": (7, 1, 7, 4, 7), "3": (7, 1, 7, 1, 7),
          "4": (5, 5, 7, 1, 1), "5": (7, 4, 7, 1, 7), "6": (7, 4, 7, 5, 7), "7": (7, 1, 1, 1, 1),
          "8": (7, 5, 7, 5, 7), "9": (7, 5, 7, 1, 7)}


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _rows(pixels: np.ndarray) -> bytes:
    """The image's scanlines, each with filter byte 0, compressed (an IDAT's body)."""
    height = pixels.shape[0]
    framed = np.concatenate([np.zeros((height, 1), dtype=np.uint8), pixels.reshape(height, -1)], axis=1)
    return zlib.compress(framed.tobytes(), 6)


def _header(width: int, height: int) -> bytes:
    return _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))


def encode_png(width: int, height: int, rgb: bytes) -> bytes:
    """A PNG file of 8-bit RGB pixels (rows top to bottom)."""
    if len(rgb) != width * 3 * height:
        raise ValueError("encode_png: %d bytes are not %dx%d RGB" % (len(rgb), width, height))
    pixels = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    return SIGNATURE + _header(width, height) + _chunk(b"IDAT", _rows(pixels)) + _chunk(b"IEND", b"")


def png_of(pixels: np.ndarray) -> bytes:
    """A PNG of an (height, width, 3) uint8 array."""
    return encode_png(pixels.shape[1], pixels.shape[0], np.ascontiguousarray(pixels).tobytes())


def scaled(rgb: bytes, width: int, height: int, scale: int) -> bytes:
    """Nearest-neighbour: each pixel becomes scale×scale."""
    pixels = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    return pixels.repeat(scale, axis=0).repeat(scale, axis=1).tobytes()


def _text(canvas: np.ndarray, text: str, x: int, y: int, size: int) -> None:
    """Draws digits at (x, y), each font pixel size×size; what falls outside the canvas is cut."""
    for index, digit in enumerate(text):
        for row, bits in enumerate(DIGITS[digit]):
            for column in range(3):
                if bits & (4 >> column):
                    top, left = y + row * size, x + (index * 4 + column) * size
                    canvas[max(top, 0):max(top + size, 0), max(left, 0):max(left + size, 0)] = LABEL_COLOR


def with_grid(pixels: np.ndarray, tile: int, scale: int) -> np.ndarray:
    """The picture enlarged `scale` times with a line every `tile` game pixels, and a margin above and to the
    left labelled with each line's x and y in game pixels (as memory holds positions)."""
    height, width = pixels.shape[:2]
    big = pixels.repeat(scale, axis=0).repeat(scale, axis=1).astype(np.uint16)
    for x in range(0, width, tile):
        big[:, x * scale] = (big[:, x * scale] + GRID_COLOR) // 2
    for y in range(0, height, tile):
        big[y * scale, :] = (big[y * scale, :] + GRID_COLOR) // 2
    size = 1 if scale < 3 else 2
    label_width = (4 * len(str(max(width, height))) - 1) * size
    margin_left, margin_top = label_width + 2 * size, 7 * size
    canvas = np.empty((height * scale + margin_top, width * scale + margin_left, 3), dtype=np.uint8)
    canvas[:] = MARGIN_COLOR
    canvas[margin_top:, margin_left:] = big.astype(np.uint8)
    every = max(1, -(-(label_width + 2 * size) // (tile * scale)))  # labels that would overlap skip lines
    for x in range(0, width, tile * every):
        _text(canvas, str(x), margin_left + x * scale, size, size)
    rows_every = max(1, -(-(6 * size) // (tile * scale)))
    for y in range(0, height, tile * rows_every):
        _text(canvas, str(y), size, margin_top + y * scale, size)
    return canvas


def contact_sheet(frames: Sequence[np.ndarray], labels: Sequence[int], columns: int = 4) -> np.ndarray:
    """Frames side by side, `columns` to a row, each with its label (a frame number) in its top-left corner."""
    height, width = frames[0].shape[:2]
    columns = min(columns, len(frames))
    rows = -(-len(frames) // columns)
    gap = 2
    sheet = np.empty((rows * (height + gap) - gap, columns * (width + gap) - gap, 3), dtype=np.uint8)
    sheet[:] = MARGIN_COLOR
    for index, (frame, label) in enumerate(zip(frames, labels)):
        top, left = (index // columns) * (height + gap), (index % columns) * (width + gap)
        sheet[top:top + height, left:left + width] = frame[:height, :width]
        digits = str(label)
        sheet[top:top + 7, left:left + 4 * len(digits) + 1] = MARGIN_COLOR
        _text(sheet, digits, left + 1, top + 1, 1)
    return sheet


def animated_png(frames: List[np.ndarray], delay_frames: int, fps: float) -> bytes:
    """An APNG that plays the frames in a loop, each shown for `delay_frames` of the game's frames."""
    height, width = frames[0].shape[:2]
    numerator, denominator = max(1, delay_frames), max(1, int(round(fps or 60)))
    parts = [SIGNATURE, _header(width, height), _chunk(b"acTL", struct.pack(">II", len(frames), 0))]
    sequence = 0
    for index, frame in enumerate(frames):
        parts.append(_chunk(b"fcTL", struct.pack(">IIIIIHHBB", sequence, width, height, 0, 0, numerator,
                                                 denominator, 0, 0)))
        sequence += 1
        data = _rows(frame[:height, :width])
        if index == 0:
            parts.append(_chunk(b"IDAT", data))
        else:
            parts.append(_chunk(b"fdAT", struct.pack(">I", sequence) + data))
            sequence += 1
    parts.append(_chunk(b"IEND", b""))
    return b"".join(parts)
