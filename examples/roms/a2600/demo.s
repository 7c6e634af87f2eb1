; Retrolua's Atari 2600 test ROM: a 4 KiB cartridge whose frame (3 lines of vertical sync, 37 of
; blank, 192 shown, 30 of overscan: NTSC) keeps a frame counter, the joystick and a colour in RAM
; ($80), writes a known pattern at $90, and shows the colour as the background. The colour changes
; per frame with the joystick, so a movie whose input is changed ends on another picture and RAM.
.setcpu "6502"

counter = $80                   ; u16: +1 per frame
joypad  = $82                   ; u8: 1 = pressed: bits 7-4 right left down up, bit 0 fire
colour  = $84                   ; u8: the background colour (NTSC hue << 4 | luminance)
pattern = $90                   ; 16 bytes: "RETROLUA-SYSTEMS"

VSYNC  = $00
VBLANK = $01
WSYNC  = $02
COLUBK = $09
INPT4  = $0C
SWCHA  = $0280

.segment "CODE"
reset:
    sei
    cld
    ldx #$FF
    txs
    lda #0
clear:                          ; TIA registers and RAM ($00-$FF) to 0
    sta $00,x
    dex
    bne clear
    sta $00
    ldx #15
copy:
    lda text,x
    sta pattern,x
    dex
    bpl copy
    lda #$44                    ; start red
    sta colour
frame:
    lda #2
    sta VBLANK
    sta VSYNC
    sta WSYNC
    sta WSYNC
    sta WSYNC
    lda #0
    sta VSYNC
    inc counter
    bne :+
    inc counter+1
:   lda SWCHA                   ; player 0 in the high nibble, 0 = pressed
    eor #$FF
    and #$F0
    sta joypad
    lda INPT4                   ; bit 7 = 0 while fire is pressed
    bmi :+
    inc joypad
:   clc                         ; colour = colour + 2 + joypad
    lda colour
    adc #2
    adc joypad
    sta colour
    sta COLUBK
    ldx #37
blank:
    sta WSYNC
    dex
    bne blank
    lda #0
    sta VBLANK
    ldx #192
picture:
    sta WSYNC
    dex
    bne picture
    lda #2
    sta VBLANK
    ldx #30
overscan:
    sta WSYNC
    dex
    bne overscan
    jmp frame

.segment "RODATA"
text: .byte "RETROLUA-SYSTEMS"

.segment "VECTORS"
    .word reset, reset, reset   ; NMI, RESET, IRQ/BRK
