#!/usr/bin/env bash
# Build the Retrolua GBA test ROM: ./build.sh OUTDIR  ->  OUTDIR/demo.gba
# Needs arm-none-eabi-as, -ld and -objcopy (Debian package: binutils-arm-none-eabi) and python3.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../build-common.sh"
needs binutils-arm-none-eabi arm-none-eabi-as arm-none-eabi-ld arm-none-eabi-objcopy

arm-none-eabi-as -mcpu=arm7tdmi -o "$work/demo.o" "$here/demo.s"
# The cartridge is mapped at $08000000.
arm-none-eabi-ld -Ttext=0x08000000 -e _start -o "$work/demo.elf" "$work/demo.o"
arm-none-eabi-objcopy -O binary "$work/demo.elf" "$work/demo.gba"
# Header checksum at $BD: -(sum of $A0..$BC) - $19, and the image padded to 1 KiB.
python3 - "$work/demo.gba" <<'PY'
import sys
path = sys.argv[1]
rom = bytearray(open(path, "rb").read())
rom[0xBD] = (-(sum(rom[0xA0:0xBD]) + 0x19)) & 0xFF
rom += b"\xff" * (-len(rom) % 1024)
open(path, "wb").write(rom)
PY
chmod 644 "$work/demo.gba"
mv "$work/demo.gba" "$out/demo.gba"
