; Retrolua's SNES test ROM: a LoROM cartridge that keeps a frame counter, the joypad and a colour in
; work RAM ($7E0000, reached through its bank-0 mirror at $0000), writes a known pattern at
; $7E0010, and shows the colour as the backdrop (CGRAM entry 0). The colour changes per frame with
; the joypad, so a movie whose input is changed ends on another picture and other RAM.
.p816
.smart

counter = $0000                 ; u16: +1 per frame
joypad  = $0002                 ; u16: $4218 this frame (auto-read), 1 = pressed
colour  = $0004                 ; u16: BGR555 backdrop colour
nmi_seen = $0006                ; u8: set by the NMI handler
pattern = $0010                 ; 16 bytes: "RETROLUA-SYSTEMS"

.segment "CODE"
reset:
    sei
    clc
    xce                         ; native mode
    rep #$18                    ; 16-bit index, binary mode
    sep #$20                    ; 8-bit accumulator
    .a8
    .i16
    ldx #$1FFF
    txs
    lda #$80
    sta $2100                   ; forced blank while setting up
    stz $4200                   ; no NMI yet
    ldx #$0000
clear:                          ; clear $0000-$00FF of work RAM
    stz $00,x
    inx
    cpx #$0100
    bne clear
    ldx #$0000
copy:
    lda text,x
    sta pattern,x
    inx
    cpx #16
    bne copy
    rep #$20
    .a16
    lda #$001F                  ; start red
    sta colour
    sep #$20
    .a8
    jsr show
    lda #$0F
    sta $2100                   ; screen on, full brightness
    lda #$81
    sta $4200                   ; NMI and automatic joypad reading
main:
    wai
    lda nmi_seen
    beq main
    stz nmi_seen
wait_pad:
    lda $4212                   ; bit 0: the automatic read is still running
    and #$01
    bne wait_pad
    rep #$20
    .a16
    inc counter
    lda $4218
    sta joypad
    ; colour += 1 + joypad (the d-pad and buttons shift it differently), kept to 15 bits
    sec
    adc colour
    and #$7FFF
    sta colour
    sep #$20
    .a8
    jsr show
    bra main

show:                           ; CGRAM entry 0 = colour (legal here: forced blank or just after NMI)
    stz $2121
    lda colour
    sta $2122
    lda colour + 1
    sta $2122
    rts

nmi:
    sep #$20
    pha
    lda $4210                   ; acknowledge the NMI
    lda #$01
    sta nmi_seen
    pla
    rti

irq:
    rti

.segment "RODATA"
text: .byte "RETROLUA-SYSTEMS"

.segment "HEADER"
    .byte "RETROLUA SYSTEMS TEST"   ; $FFC0: title, 21 bytes
    .byte $20                       ; $FFD5: LoROM, slow ROM
    .byte $00                       ; $FFD6: ROM only
    .byte $05                       ; $FFD7: ROM size 2^5 KiB = 32 KiB
    .byte $00                       ; $FFD8: no cartridge RAM
    .byte $01                       ; $FFD9: North America
    .byte $00                       ; $FFDA: developer ID
    .byte $00                       ; $FFDB: version
    .word $FFFF                     ; $FFDC: checksum complement (build.sh fills both in)
    .word $0000                     ; $FFDE: checksum

.segment "VECTORS"
    .word 0, 0, irq, irq, irq, nmi, 0, irq      ; $FFE0: native (COP, BRK, ABORT, NMI at $FFEA, IRQ $FFEE)
    .word 0, 0, irq, 0, irq, nmi, reset, irq    ; $FFF0: emulation (NMI $FFFA, RESET $FFFC, IRQ $FFFE)
