#!/usr/bin/env bash
# Build the Retrolua NES test ROM.
#   usage: build.sh OUTDIR      -> writes OUTDIR/demo.nes
# Needs ca65 and ld65 from cc65. Prints nothing on success.
set -euo pipefail

if [ "$#" -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out_dir="$1"
mkdir -p "$out_dir"

obj="$(mktemp "${TMPDIR:-/tmp}/retrolua-nes-demo.XXXXXX.o")"
trap 'rm -f "$obj"' EXIT

ca65 -o "$obj" "$src_dir/demo.s"
ld65 -C "$src_dir/nrom.cfg" -o "$out_dir/demo.nes" "$obj"
