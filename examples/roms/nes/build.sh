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
"$src_dir/../nrom/build-nrom.sh" "$src_dir/demo.s" "$1/demo.nes"
