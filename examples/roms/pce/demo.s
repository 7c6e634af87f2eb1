; Retrolua's PC Engine test ROM: an 8 KiB HuCard that maps work RAM at $2000 (bank $F8 in MPR1),
; keeps a frame counter, the joypad and a colour there, writes a known pattern at $2010 and shows
; the colour as the background through the VCE (colour 0). The colour changes per frame with the
; joypad, so a movie whose input is changed ends on another picture and other RAM.
.setcpu "huc6280"
.smart

counter  = $2000                ; u16: +1 per frame (VDC vertical blank)
joypad   = $2002                ; u8: 1 = pressed: bits 7-4 Left Down Right Up, 3-0 Run Select II I
colour   = $2004                ; u16: VCE colour, 9 bits GGGRRRBBB
vblanks  = $2006                ; u8: set by the interrupt handler
pattern  = $2010                ; 16 bytes: "RETROLUA-SYSTEMS"

VDC_ADDR = $0000                ; write: register number; read: status (a: forces absolute
                                ; addressing: zero page is RAM at $2000 on the HuC6280)
VDC_LO   = $0002
VDC_HI   = $0003
VCE_CTRL = $0400
VCE_ADLO = $0402
VCE_ADHI = $0403
VCE_DTLO = $0404
VCE_DTHI = $0405
JOY      = $1000
IRQ_MASK = $1402

.segment "CODE"
reset:
    sei
    csl
    cld
    lda #$FF
    tam #$01                    ; MPR0 = $FF: hardware I/O at $0000
    lda #$F8
    tam #$02                    ; MPR1 = $F8: work RAM at $2000 (zero page and stack live there)
    ldx #$FF
    txs
    lda #$07
    sta IRQ_MASK                ; all interrupts off while setting up
    ldx #0
clear:
    stz $2000,x
    inx
    bne clear
    ldx #0
copy:
    lda text,x
    sta pattern,x
    inx
    cpx #16
    bne copy
    lda #$07                    ; start blue
    sta colour
    ldy #0                      ; the VDC's display registers for 256x224
vdc:
    lda vdc_init,y
    sta a:VDC_ADDR
    lda vdc_init+1,y
    sta a:VDC_LO
    lda vdc_init+2,y
    sta a:VDC_HI
    iny
    iny
    iny
    cpy #vdc_end - vdc_init
    bne vdc
    stz VCE_CTRL                ; 5.37 MHz dot clock
    jsr show
    lda a:VDC_ADDR                ; clear a pending status
    lda #$05
    sta IRQ_MASK                ; only IRQ1 (the VDC) on
    cli
main:
    lda vblanks
    beq main
    stz vblanks
    inc counter
    bne :+
    inc counter+1
:   jsr read_pad
    ; colour = colour + 1 + joypad, kept to 9 bits
    sec
    lda joypad
    adc colour
    sta colour
    lda colour+1
    adc #0
    and #$01
    sta colour+1
    jsr show
    bra main

read_pad:                       ; joypad = ~(directions << 4 | buttons)
    lda #$01
    sta JOY
    lda #$03
    sta JOY                     ; CLR: restart at the first pad
    lda #$01
    sta JOY                     ; SEL = 1: directions in the low nibble
    pha
    pla
    nop
    nop
    lda JOY
    asl a
    asl a
    asl a
    asl a
    sta joypad
    stz JOY                     ; SEL = 0: buttons
    pha
    pla
    nop
    nop
    lda JOY
    and #$0F
    ora joypad
    eor #$FF
    sta joypad
    rts

show:                           ; VCE colour 0 (the background) = colour
    stz VCE_ADLO
    stz VCE_ADHI
    lda colour
    sta VCE_DTLO
    lda colour+1
    sta VCE_DTHI
    rts

vdc_irq:
    pha
    lda a:VDC_ADDR                ; reading the status acknowledges the interrupt
    lda #$01
    sta vblanks
    pla
    rti

other_irq:
    rti

.segment "RODATA"
text: .byte "RETROLUA-SYSTEMS"
vdc_init:                       ; register, value (little endian)
    .byte $05
    .word $00C8                 ; CR: vertical blank interrupt, background and sprites on
    .byte $09
    .word $0000                 ; MWR: 32x32 background map
    .byte $0A
    .word $0202                 ; HSR
    .byte $0B
    .word $031F                 ; HDR: 32 tiles wide
    .byte $0C
    .word $0F02                 ; VSR
    .byte $0D
    .word $00DF                 ; VDR: 224 lines
    .byte $0E
    .word $0003                 ; VCR
vdc_end:

.segment "VECTORS"
    .word other_irq             ; $FFF6: IRQ2 (BRK, CD)
    .word vdc_irq               ; $FFF8: IRQ1 (VDC)
    .word other_irq             ; $FFFA: timer
    .word other_irq             ; $FFFC: NMI
    .word reset                 ; $FFFE: reset
