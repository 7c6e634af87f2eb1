"""Pictures for the agent: PNG encoding (for a retrolua without PNG frames) and nearest-neighbour scaling."""

import struct
import zlib


def encode_png(width: int, height: int, rgb: bytes) -> bytes:
    """A PNG file of 8-bit RGB pixels (rows top to bottom): screenshots from a retrolua without PNG frames."""
    stride = width * 3
    if len(rgb) != stride * height:
        raise ValueError("encode_png: %d bytes are not %dx%d RGB" % (len(rgb), width, height))
    rows = b"".join(b"\x00" + rgb[row * stride:(row + 1) * stride] for row in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")


def scaled(rgb: bytes, width: int, height: int, scale: int) -> bytes:
    """Nearest-neighbour: each pixel becomes scale×scale."""
    import numpy as np

    pixels = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    return pixels.repeat(scale, axis=0).repeat(scale, axis=1).tobytes()
