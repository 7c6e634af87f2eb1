#!/usr/bin/env bash
# Build the Retrolua NDS test ROM: ./build.sh OUTDIR  ->  OUTDIR/demo.nds
# Needs arm-none-eabi-as, -ld and -objcopy (Debian package: binutils-arm-none-eabi) and python3.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../build-common.sh"
needs binutils-arm-none-eabi arm-none-eabi-as arm-none-eabi-ld arm-none-eabi-objcopy

arm-none-eabi-as -mcpu=arm946e-s -o "$work/demo.o" "$here/demo.s"
# Both binaries run from main RAM: the ARM9's at $02000000, the ARM7's at $02380000.
arm-none-eabi-ld -Ttext=0x02000000 -e arm9_start -o "$work/demo.elf" "$work/demo.o"
arm-none-eabi-objcopy -O binary "$work/demo.elf" "$work/code.bin"
arm7=$(arm-none-eabi-nm "$work/demo.elf" | awk '$3 == "arm7_start" { print $1 }')
# The cartridge: a 512-byte header of our own, then the code (read by the ARM9 from $0200 and by
# the ARM7 at its own label's offset), padded to 128 KiB.
python3 - "$work/code.bin" "$work/demo.nds" "$arm7" <<'PY'
import struct, sys
code = open(sys.argv[1], "rb").read()
arm7 = int(sys.argv[3], 16) - 0x02000000
header = bytearray(0x200)
header[0x00:0x0C] = b"RETROLUA NDS"
header[0x0C:0x10] = b"ZRLE"
header[0x10:0x12] = b"00"
size = (len(code) + 3) & ~3
struct.pack_into("<IIII", header, 0x20, 0x200, 0x02000000, 0x02000000, size)
struct.pack_into("<IIII", header, 0x30, 0x200 + arm7, 0x02000000 + arm7, 0x02000000 + arm7, size - arm7)
struct.pack_into("<II", header, 0x80, 0x200 + size, 0x200)
def crc16(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc
struct.pack_into("<H", header, 0x15C, 0xCF56)
struct.pack_into("<H", header, 0x15E, crc16(header[:0x15E]))
rom = header + code + bytes(size - len(code))
rom += b"\x00" * (0x20000 - len(rom))
open(sys.argv[2], "wb").write(rom)
PY
chmod 644 "$work/demo.nds"
mv "$work/demo.nds" "$out/demo.nds"
