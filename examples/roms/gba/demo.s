@ Retrolua's GBA test ROM: a cartridge with our own header fields (no Nintendo logo: mGBA's HLE
@ BIOS does not check it) that keeps a frame counter, the keys and a colour in IWRAM ($03000000),
@ writes a known pattern to EWRAM ($02000000), and fills the top of a mode 3 screen with the
@ colour. The colour changes per frame with the keys, so a movie whose input is changed ends on
@ another picture and other RAM.
    .arm
    .section .text
    .global _start
_start:
    b reset
    .fill 156, 1, 0                 @ $04: where the logo would be (left blank)
    .ascii "RETROLUA SYS"           @ $A0: title, 12 bytes
    .ascii "ZRLE"                   @ $AC: game code
    .ascii "00"                     @ $B0: maker code
    .byte 0x96                      @ $B2: fixed value
    .byte 0                         @ $B3: main unit
    .byte 0                         @ $B4: device type
    .fill 7, 1, 0                   @ $B5: reserved
    .byte 0                         @ $BC: version
    .byte 0                         @ $BD: header checksum (build.sh fills it in)
    .fill 2, 1, 0                   @ $BE: reserved

    .equ IWRAM,    0x03000000       @ +0 u32 frame counter, +4 u16 keys (1 = pressed), +8 u16 colour
    .equ EWRAM,    0x02000000       @ 16 bytes "RETROLUA-SYSTEMS"
    .equ REG_BASE, 0x04000000
    .equ VRAM,     0x06000000

reset:
    ldr r8, =IWRAM
    ldr r9, =REG_BASE
    mov r0, #0
    str r0, [r8]                    @ counter = 0
    str r0, [r8, #4]                @ keys = 0
    mov r0, #0x7C00                 @ colour = blue
    str r0, [r8, #8]
    ldr r1, =EWRAM
    adr r2, text
    ldmia r2, {r3-r6}
    stmia r1, {r3-r6}
    ldr r0, =0x0403                 @ DISPCNT: mode 3, BG2 on
    strh r0, [r9]
frame:
1:  ldrh r0, [r9, #6]               @ VCOUNT: wait for the end of the picture (line 160)...
    cmp r0, #160
    bne 1b
    ldr r1, [r8]
    add r1, r1, #1
    str r1, [r8]
    add r0, r9, #0x100
    ldrh r0, [r0, #0x30]            @ KEYINPUT ($04000130), 0 = pressed
    mvn r0, r0
    ldr r2, =0x03FF
    and r0, r0, r2
    strh r0, [r8, #4]
    ldrh r3, [r8, #8]               @ colour = colour + 1 + keys * 33, kept to 15 bits
    add r3, r3, #1
    add r0, r0, r0, lsl #5
    add r3, r3, r0
    ldr r2, =0x7FFF
    and r3, r3, r2
    strh r3, [r8, #8]
    ldr r4, =VRAM                   @ fill the top 16 lines (240 x 16 pixels) with it
    orr r5, r3, r3, lsl #16
    mov r6, #(240 * 16 / 2)
2:  str r5, [r4], #4
    subs r6, r6, #1
    bne 2b
3:  ldrh r0, [r9, #6]               @ ...then for the next picture to start
    cmp r0, #160
    beq 3b
    b frame

text: .ascii "RETROLUA-SYSTEMS"
    .ltorg
