"""Where the Python tests find the source tree and the binary under test ($RETROLUA, else the debug build)."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
