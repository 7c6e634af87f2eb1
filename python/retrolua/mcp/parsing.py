"""What the agent sends, checked: addresses, bytes, core names and options, state names; the limits of
one call. Each check raises ValueError with a message naming the argument."""

import re
from typing import Any, Dict, Optional, Sequence, Union

MAX_FRAMES = 3600  # one step: a minute of a 60 fps game
MAX_BYTES = 4096  # one read or write
MAX_SCALE = 4
MAX_STATES = 64
MAX_NAME = 64
MAX_LUA = 65536

#: A number the agent may give as an integer or as text ("0x1F", "$1F", "31").
Address = Union[int, str]


def parse_address(value: Address, argument: str) -> int:
    """An address from an integer or text: "0x1F", "$1F" (hexadecimal) or "31"."""
    if isinstance(value, bool):
        raise ValueError('"%s" must be an integer or a string such as "0x1F", got %r' % (argument, value))
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            if text[:2].lower() == "0x":
                number = int(text[2:], 16)
            elif text.startswith("$"):
                number = int(text[1:], 16)
            else:
                number = int(text, 10)
        except ValueError:
            raise ValueError('"%s": %r is not a number (write 0x1F, $1F or 31)' % (argument, value)) from None
    else:
        raise ValueError('"%s" must be an integer or a string such as "0x1F", got %r' % (argument, value))
    if number < 0 or number > 0xFFFFFFFFFFFF:
        raise ValueError('"%s" must be in 0..0xFFFFFFFFFFFF, got %s' % (argument, value))
    return number


def parse_bytes(data: Union[str, Sequence[int]]) -> bytes:
    """Bytes from a hex string ("0a ff", "0aff", "0x0a 0xff") or a list of integers 0..255."""
    if isinstance(data, str):
        tokens = [token for token in re.split(r"[\s,]+", data.strip()) if token]
        try:
            if len(tokens) == 1:
                text = tokens[0][2:] if tokens[0][:2].lower() == "0x" else tokens[0]
                payload = bytes.fromhex(text)
            else:
                payload = bytes(int(token[2:] if token[:2].lower() == "0x" else token, 16) for token in tokens)
        except ValueError:
            raise ValueError('"data": %r is not hex bytes (write "0a ff 10" or a list of integers)' % data[:80]
                             ) from None
    elif isinstance(data, (list, tuple)):
        if not all(isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 255 for value in data):
            raise ValueError('"data": every value must be an integer in 0..255')
        payload = bytes(data)
    else:
        raise ValueError('"data" must be a hex string or a list of integers, got %r' % (data,))
    if not 1 <= len(payload) <= MAX_BYTES:
        raise ValueError('"data" must hold 1..%d bytes, got %d' % (MAX_BYTES, len(payload)))
    return payload


def core_name(core: str) -> str:
    if not isinstance(core, str) or not re.fullmatch(r"[A-Za-z0-9_.+-]{1,64}", core) or core.startswith("-"):
        raise ValueError('"core" must be a core name from list_cores (such as "nestopia"), got %r' % (core,))
    return core


def core_options(options: Optional[Dict[str, Any]]) -> Dict[str, str]:
    """Core options as the command line's --option KEY=VALUE pairs, checked (never an option of retrolua's)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError('"options" must be an object of core option names to values, got %r' % (options,))
    checked = {}
    for key, value in options.items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}", key):
            raise ValueError('"options": %r is not a core option name' % (key,))
        if isinstance(value, bool):
            value = "enabled" if value else "disabled"
        if not isinstance(value, (str, int, float)) or "\n" in str(value) or len(str(value)) > 256:
            raise ValueError('"options": the value of %s must be a short string, got %r' % (key, value))
        checked[key] = str(value)
    return checked


def state_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise ValueError('"name" must be a non-empty string of at most %d characters, got %r' % (MAX_NAME, name))
    return name.strip()
