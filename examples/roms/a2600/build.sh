#!/usr/bin/env bash
# Build the Retrolua Atari 2600 test ROM: ./build.sh OUTDIR  ->  OUTDIR/demo.a26
# Needs ca65 and ld65 (Debian package: cc65).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

ca65 -o "$work/demo.o" "$here/demo.s"
ld65 -C "$here/4k.cfg" -o "$work/demo.a26" "$work/demo.o"
mv "$work/demo.a26" "$out/demo.a26"
