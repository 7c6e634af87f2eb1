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
"$src_dir/../nrom/build-nrom.sh" "$src_dir/dodge.s" "$1/dodge.nes"
