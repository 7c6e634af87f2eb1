#!/usr/bin/env bash
# Build the Retrolua SNES test ROM: ./build.sh OUTDIR  ->  OUTDIR/demo.sfc
# Needs ca65 and ld65 (Debian package: cc65) and python3 (the header checksum).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../build-common.sh"

ca65 --cpu 65816 -o "$work/demo.o" "$here/demo.s"
ld65 -C "$here/lorom.cfg" -o "$work/demo.sfc" "$work/demo.o"
# The checksum is the 16-bit sum of every byte with complement + checksum counted as $FFFF + $0000.
python3 - "$work/demo.sfc" <<'PY'
import sys
path = sys.argv[1]
rom = bytearray(open(path, "rb").read())
rom[0x7FDC:0x7FE0] = b"\xff\xff\x00\x00"
total = sum(rom) & 0xFFFF
rom[0x7FDC:0x7FE0] = ((total ^ 0xFFFF).to_bytes(2, "little") + total.to_bytes(2, "little"))
open(path, "wb").write(rom)
PY
mv "$work/demo.sfc" "$out/demo.sfc"
