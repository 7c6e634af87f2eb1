#!/usr/bin/env bash
# Build the Retrolua Atari 2600 test ROM: ./build.sh OUTDIR  ->  OUTDIR/demo.a26
# Needs ca65 and ld65 (Debian package: cc65).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../build-common.sh"

ca65 -o "$work/demo.o" "$here/demo.s"
ld65 -C "$here/4k.cfg" -o "$work/demo.a26" "$work/demo.o"
mv "$work/demo.a26" "$out/demo.a26"
