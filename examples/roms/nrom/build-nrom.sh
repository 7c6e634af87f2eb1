#!/usr/bin/env bash
# Assembles one ca65 source into an NROM-128 cartridge with the shared linker map (nrom.cfg).
#   usage: build-nrom.sh SOURCE.s OUTPUT.nes
# Used by the NES ROMs' build.sh scripts. Needs ca65 and ld65 from cc65. Prints nothing on success.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 SOURCE.s OUTPUT.nes" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$(dirname "$2")"
obj="$(mktemp "${TMPDIR:-/tmp}/retrolua-nrom.XXXXXX.o")"
trap 'rm -f "$obj"' EXIT

ca65 -o "$obj" "$1"
ld65 -C "$here/nrom.cfg" -o "$2" "$obj"
