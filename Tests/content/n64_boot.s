# A tiny N64 program of our own for parallel_n64's GL plugin: it runs as the ROM's boot code (copied
# to SP DMEM at 0xA4000040 by the emulator's PIF boot), fills a 320x240 RGBA5551 framebuffer, points
# the video interface at it and idles. No Nintendo code.
# (parallel_n64's default plugin, glide64, draws only what the RDP draws, so its GL frames of this are
# black; an RDP list sent through the DPC registers crashes glide64. The frames are still GL frames.)
    .set noreorder
    .set noat
    .text
    .globl start
start:
    lui   $t0, 0xA010            # framebuffer: 0xA0100000 (uncached RDRAM)
    li    $t1, 320*240
    move  $t2, $zero
fill:                            # a gradient: colour = index * 2 | alpha
    sll   $t3, $t2, 1
    ori   $t3, $t3, 1
    sh    $t3, 0($t0)
    addiu $t0, $t0, 2
    addiu $t2, $t2, 1
    bne   $t2, $t1, fill
    nop

    lui   $t0, 0xA440            # video interface registers, NTSC 320x240 16-bit
    li    $t1, 0x0000320E
    sw    $t1, 0x00($t0)         # status: 16-bit colour, dither, resample
    lui   $t1, 0x0010
    sw    $t1, 0x04($t0)         # origin
    li    $t1, 320
    sw    $t1, 0x08($t0)         # width
    li    $t1, 0x200
    sw    $t1, 0x0C($t0)         # interrupt line
    li    $t1, 0x03E52239
    sw    $t1, 0x14($t0)         # burst
    li    $t1, 0x20D
    sw    $t1, 0x18($t0)         # v sync
    li    $t1, 0xC15
    sw    $t1, 0x1C($t0)         # h sync
    li    $t1, 0x0C150C15
    sw    $t1, 0x20($t0)         # leap
    li    $t1, 0x006C02EC
    sw    $t1, 0x24($t0)         # h start
    li    $t1, 0x002501FF
    sw    $t1, 0x28($t0)         # v start
    li    $t1, 0x000E0204
    sw    $t1, 0x2C($t0)         # v burst
    li    $t1, 0x200
    sw    $t1, 0x30($t0)         # x scale (320/640)
    li    $t1, 0x400
    sw    $t1, 0x34($t0)         # y scale

    # Then an idle loop, which the emulator recognises and skips to the next interrupt: frames are cheap.
idle:
    b     idle
    nop
