#!/usr/bin/env bash
# Build the Retrolua "dodge" NES game.
#   usage: build.sh OUTDIR      -> writes OUTDIR/dodge.nes and OUTDIR/dodge2p.nes
# dodge2p.nes is the same source with TWO_PLAYERS defined: a second face on pad 2 (netplay's demo).
# Needs ca65 and ld65 from cc65. Prints nothing on success.
set -euo pipefail

if [ "$#" -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

src_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$src_dir/../nrom/build-nrom.sh" "$src_dir/dodge.s" "$1/dodge.nes"
obj="$(mktemp "${TMPDIR:-/tmp}/retrolua-dodge2p.XXXXXX.o")"
trap 'rm -f "$obj"' EXIT
ca65 -D TWO_PLAYERS -o "$obj" "$src_dir/dodge.s"
ld65 -C "$src_dir/../nrom/nrom.cfg" -o "$1/dodge2p.nes" "$obj"
