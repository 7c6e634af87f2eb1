#!/usr/bin/env bash
# Build the Retrolua PC Engine test ROM: ./build.sh OUTDIR  ->  OUTDIR/demo.pce
# Needs ca65 and ld65 (Debian package: cc65, whose ca65 knows the HuC6280).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../build-common.sh"

ca65 -o "$work/demo.o" "$here/demo.s"
ld65 -C "$here/hucard.cfg" -o "$work/demo.pce" "$work/demo.o"
mv "$work/demo.pce" "$out/demo.pce"
