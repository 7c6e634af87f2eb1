#!/usr/bin/env bash
# Build the Retrolua "dodge" NES game.
#   usage: build.sh OUTDIR      -> writes OUTDIR/dodge.nes
# Needs ca65 and ld65 from cc65. Prints nothing on success.
set -euo pipefail

if [ "$#" -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out_dir="$1"
mkdir -p "$out_dir"

obj="$(mktemp "${TMPDIR:-/tmp}/retrolua-nes-dodge.XXXXXX.o")"
trap 'rm -f "$obj"' EXIT

ca65 -o "$obj" "$src_dir/dodge.s"
ld65 -C "$src_dir/nrom.cfg" -o "$out_dir/dodge.nes" "$obj"
