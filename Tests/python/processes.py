"""What several Python tests ask of a process: whether it has ended."""

import time


def gone(pid, seconds):
    """True once process `pid` has ended (a zombie nobody waited for counts) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as stat:
                if stat.read().split(") ")[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False
