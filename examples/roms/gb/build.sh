#!/usr/bin/env bash
# Build the Retrolua Game Boy test ROM: ./build.sh OUTDIR  ->  OUTDIR/demo.gb
# Needs sdasgb, sdldgb and makebin (Debian package: sdcc).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../build-common.sh"

needs sdcc sdasgb sdldgb makebin

log="$work/log"
run() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }; }

cp "$here/demo.s" "$work/demo.s"
# -o: write the relocatable object.
run sdasgb -o "$work/demo.rel" "$work/demo.s"
# -i: Intel hex output.
run sdldgb -i "$work/demo.ihx" "$work/demo.rel"
# -Z: Game Boy image with logo, title and checksums; 2 banks (32 KiB), no MBC.
# -yp: SGB flag ($0146) and mask ROM version ($014C) = 0 (makebin leaves $FF).
run makebin -Z -yo 2 -yn "RETROLUA" -yp 0x146=0x00 -yp 0x14C=0x00 \
    "$work/demo.ihx" "$work/demo.gb"

mv "$work/demo.gb" "$out/demo.gb"
