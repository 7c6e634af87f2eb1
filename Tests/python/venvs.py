"""Fresh virtual environments for the packaging tests (test_package, test_wheel, test_wheel_docs): the tests stay
offline, so numpy, gymnasium and the rest come from this interpreter's site-packages through a .pth file, placed
after the venv's own site-packages so that the retrolua installed into the venv is the one imported."""

import glob
import os
import re
import subprocess
import sys

import numpy as np

from tree import ROOT
VERSION = re.search(r'^version = "(.*)"', open(os.path.join(ROOT, "python", "pyproject.toml")).read(), re.M).group(1)


def the_wheel():
    """The newest wheel scripts/wheel built for this version."""
    wheels = glob.glob(os.path.join(ROOT, "dist", "retrolua-%s-py3-none-manylinux_*_x86_64.whl" % VERSION))
    assert wheels, "no dist/retrolua-%s-py3-none-manylinux_*_x86_64.whl: run scripts/wheel first" % VERSION
    return max(wheels, key=os.path.getmtime)


def borrowing_venv(folder, pth_name="zz-borrowed.pth"):
    """Creates a venv in `folder` that borrows this interpreter's packages; returns its python's path."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, pth_name), "w") as pth:
        pth.write(os.path.dirname(os.path.dirname(np.__file__)) + "\n")
    return python


def install_the_wheel(python):
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--disable-pip-version-check",
                    the_wheel()], check=True)
