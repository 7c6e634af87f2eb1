@ Retrolua's NDS test ROM: ARM9 code that turns the LCDs on, shows VRAM bank A as the top screen
@ (engine A's "VRAM display" mode) and each frame fills it with a colour that moves with the frame
@ counter and the keys; the ARM7 waits forever. Booted directly (melonDS's direct boot, its FreeBIOS
@ and generated firmware: no Nintendo BIOS or firmware needed).
    .arm
    .section .text

    .equ REG_DISPCNT,  0x04000000
    .equ REG_VCOUNT,   0x04000006
    .equ REG_KEYINPUT, 0x04000130
    .equ REG_VRAMCNT_A, 0x04000240
    .equ REG_POWCNT1,  0x04000304
    .equ VRAM_A,       0x06800000
    .equ STATE,        0x02100000   @ main RAM: +0 u32 frame counter, +4 u16 keys (1 = pressed), +6 u16 colour

    .global arm9_start
arm9_start:
    ldr r0, =REG_POWCNT1
    ldr r1, =0x8003                 @ LCDs on, 2D engine A on, engine A on the top screen
    str r1, [r0]
    ldr r0, =REG_VRAMCNT_A
    mov r1, #0x80                   @ bank A enabled, LCDC (plain CPU access)
    strb r1, [r0]
    ldr r0, =REG_DISPCNT
    ldr r1, =0x00020000             @ display mode 2: the screen is VRAM bank A, 256x192 BGR555
    str r1, [r0]
    ldr r8, =STATE
    mov r0, #0
    str r0, [r8]
    mov r6, #0x1F                   @ colour: red
frame:
    ldr r0, =REG_VCOUNT
1:  ldrh r1, [r0]                   @ wait for the first line of vertical blank
    cmp r1, #192
    bne 1b
    ldr r0, =REG_KEYINPUT
    ldrh r2, [r0]
    ldr r3, =0x3FF
    eor r2, r2, r3                  @ 1 = pressed
    strh r2, [r8, #4]
    ldr r0, [r8]
    add r0, r0, #1
    str r0, [r8]
    @ colour: red, plus green from the keys (any key turns the screen yellow-ish)
    cmp r2, #0
    ldrne r6, =0x3FF
    moveq r6, #0x1F
    strh r6, [r8, #6]
    orr r7, r6, r6, lsl #16         @ two pixels
    ldr r4, =VRAM_A
    mov r5, #(256 * 192 / 2)
2:  str r7, [r4], #4
    subs r5, r5, #1
    bne 2b
    ldr r0, =REG_VCOUNT
3:  ldrh r1, [r0]                   @ wait for the line to move on
    cmp r1, #192
    beq 3b
    b frame
    .ltorg

    .global arm7_start
arm7_start:
    b arm7_start
