; demo.s - Retrolua NES test ROM (NROM-128, iNES mapper 0)
;
; A tiny, fully deterministic program meant to be driven by a libretro
; frontend test-suite.  All observable state lives at fixed zero-page
; addresses (see README.md for the table):
;
;   $00-$01  frame counter (u16, little-endian), +1 per NMI
;   $02      joypad byte read this frame (bit7=A ... bit0=Right)
;   $03      player X   (starts at 120)
;   $04      player Y   (starts at 112)
;   $05      A counter  (+1 on every new press of A)
;   $06      1 while B is held, else 0 (B also gates a 440 Hz tone)
;   $07      previous frame's joypad byte
;
; Structure: the reset code initialises the hardware and then idles in an
; endless loop.  *All* per-frame work - including the single joypad poll -
; happens inside the NMI handler, so there is exactly one poll per NMI.
;
; Assemble/link:  ca65 demo.s && ld65 -C nrom.cfg demo.o -o demo.nes

; ---------------------------------------------------------------------------
; Hardware registers
; ---------------------------------------------------------------------------
PPUCTRL   = $2000
PPUMASK   = $2001
PPUSTATUS = $2002
OAMADDR   = $2003
PPUSCROLL = $2005
PPUADDR   = $2006
PPUDATA   = $2007

SQ1_VOL   = $4000
SQ1_SWEEP = $4001
SQ1_LO    = $4002
SQ1_HI    = $4003
DMC_FREQ  = $4010
OAMDMA    = $4014
SND_CHN   = $4015
JOY1      = $4016
APU_FRAME = $4017

; ---------------------------------------------------------------------------
; Fixed RAM layout (zero page)
; ---------------------------------------------------------------------------
frame_lo  = $00
frame_hi  = $01
pad       = $02
player_x  = $03
player_y  = $04
a_count   = $05
b_held    = $06
pad_prev  = $07
pad_new   = $08         ; scratch: buttons that went down this frame

oam       = $0200       ; shadow OAM, copied to the PPU by DMA every frame

; Joypad bit masks (first bit shifted out of $4016 ends up in bit 7)
BTN_A      = %10000000
BTN_B      = %01000000
BTN_SELECT = %00100000
BTN_START  = %00010000
BTN_UP     = %00001000
BTN_DOWN   = %00000100
BTN_LEFT   = %00000010
BTN_RIGHT  = %00000001

START_X   = 120
START_Y   = 112

BG_TILE     = 0         ; solid tile, every pixel = colour 1
SPRITE_TILE = 1         ; solid tile, every pixel = colour 3

; PPUCTRL: NMI on, 8x8 sprites, BG and sprites both from pattern table $0000,
; VRAM increment +1, base nametable $2000.
CTRL_VALUE = %10000000
; PPUMASK: show background + sprites, including the leftmost 8 pixels.
MASK_VALUE = %00011110

; Pulse 1, "tone on": duty 50% (10), length-counter halt (1),
; constant volume (1), volume 15.
SQ1_ON    = %10111111
; Same but volume 0 -> silent.
SQ1_OFF   = %10110000
TONE_PERIOD = 253       ; f = 1789773 / (16 * (253 + 1)) ~= 440.4 Hz

; ---------------------------------------------------------------------------
; iNES header
; ---------------------------------------------------------------------------
boot_count = $6000      ; battery-backed: power-on/reset count (u8)

.segment "HEADER"
    .byte "NES", $1A
    .byte 1             ; PRG-ROM size in 16 KB units
    .byte 1             ; CHR-ROM size in 8 KB units
    .byte %00000011     ; mapper 0 (low nibble), battery-backed PRG-RAM, vertical mirroring
    .byte %00000000     ; mapper 0 (high nibble), plain iNES
    .byte 0, 0, 0, 0, 0, 0, 0, 0

; ---------------------------------------------------------------------------
; Code
; ---------------------------------------------------------------------------
.segment "CODE"

.proc reset
    sei                 ; no IRQs, ever
    cld                 ; (the 2A03 has no decimal mode, but be tidy)
    ldx #$40
    stx APU_FRAME       ; inhibit the APU frame-counter IRQ
    ldx #$FF
    txs
    inx                 ; X = 0
    stx PPUCTRL         ; NMI off
    stx PPUMASK         ; rendering off
    stx DMC_FREQ        ; DMC IRQ off
    stx SND_CHN         ; all sound channels off

    bit PPUSTATUS       ; clear a possibly stale vblank flag
@vblank1:
    bit PPUSTATUS
    bpl @vblank1

    ; Clear all 2 KB of work RAM while the PPU warms up.  Shadow OAM is
    ; filled with $FF so that every sprite starts off-screen.
    lda #0
    tax
@clear:
    sta $0000, x
    sta $0100, x
    sta $0300, x
    sta $0400, x
    sta $0500, x
    sta $0600, x
    sta $0700, x
    inx
    bne @clear
    lda #$FF
@clear_oam:
    sta oam, x
    inx
    bne @clear_oam

    ; Count power-ons and resets in battery-backed PRG-RAM ($6000, offset 0 of
    ; the core's save RAM), so a test can see save RAM survive a restart.
    inc boot_count

@vblank2:
    bit PPUSTATUS
    bpl @vblank2

    ; --- the PPU is ready now ---------------------------------------------

    ; Palettes: all 32 entries, $3F00-$3F1F.
    lda #$3F
    sta PPUADDR
    lda #$00
    sta PPUADDR
    ldx #0
@palette:
    lda palettes, x
    sta PPUDATA
    inx
    cpx #32
    bne @palette

    ; Nametable 0 ($2000-$23FF): 960 tile bytes of BG_TILE followed by
    ; 64 attribute bytes of 0 (palette 0 everywhere).  BG_TILE is 0, so
    ; all 1024 bytes are simply written with 0.  Nametable 1 ($2400) gets
    ; the same treatment so the picture is correct whichever table the
    ; emulator's mirroring ends up showing.
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #BG_TILE
    ldy #8              ; 8 * 256 = 2048 bytes = nametables 0 and 1
    ldx #0
@nametable:
    sta PPUDATA
    inx
    bne @nametable
    dey
    bne @nametable

    ; Game state.  The frame counter, pad bytes and counters are already 0.
    lda #START_X
    sta player_x
    lda #START_Y
    sta player_y
    jsr build_oam

    ; APU: enable pulse 1 only, keep it silent until B is held.
    lda #%00000001
    sta SND_CHN
    lda #SQ1_OFF
    sta SQ1_VOL
    lda #%00001000      ; sweep disabled (negate bit set, as is customary)
    sta SQ1_SWEEP
    lda #<TONE_PERIOD
    sta SQ1_LO
    lda #>TONE_PERIOD   ; high 3 bits of the period, length index 0
    sta SQ1_HI

    ; Upload the shadow OAM once now, so the very first rendered frame
    ; already shows the sprite (and no power-on OAM garbage).
    lda #0
    sta OAMADDR
    lda #>oam
    sta OAMDMA

    ; Wait for the start of a vblank, then turn on rendering and NMI.
    ; The read of PPUSTATUS that sees the flag also clears it, so enabling
    ; NMI here does not cause an immediate NMI: the first NMI is the next
    ; vblank, and the frame counter becomes 1 there.
@vblank3:
    bit PPUSTATUS
    bpl @vblank3
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    lda #MASK_VALUE
    sta PPUMASK
    lda #CTRL_VALUE
    sta PPUCTRL

forever:
    jmp forever         ; everything else happens in the NMI handler
.endproc

; ---------------------------------------------------------------------------
; NMI: runs once per frame at the start of vblank.
;   1. frame counter += 1
;   2. poll joypad 1 (the only poll of the frame)
;   3. game logic (movement, A counter, B tone)
;   4. rebuild shadow OAM and DMA it to the PPU
; The logic is short enough that all of this finishes well inside vblank,
; so the sprite drawn during the next frame reflects this frame's state.
; ---------------------------------------------------------------------------
.proc nmi
    pha
    txa
    pha
    tya
    pha

    ; 1. Frame counter.
    inc frame_lo
    bne :+
    inc frame_hi
:

    ; 2. Joypad.
    lda pad
    sta pad_prev
    jsr read_joypad

    ; Newly pressed buttons = pad AND NOT pad_prev.
    lda pad_prev
    eor #$FF
    and pad
    sta pad_new

    ; 3a. D-pad movement, 1 pixel per frame, u8 wrap-around.
    lda pad
    and #BTN_RIGHT
    beq :+
    inc player_x
:   lda pad
    and #BTN_LEFT
    beq :+
    dec player_x
:   lda pad
    and #BTN_DOWN
    beq :+
    inc player_y
:   lda pad
    and #BTN_UP
    beq :+
    dec player_y
:

    ; 3b. A counter (edge triggered).
    lda pad_new
    and #BTN_A
    beq :+
    inc a_count
:

    ; 3c. B: flag + tone.
    lda pad
    and #BTN_B
    beq @b_up
    lda #1
    sta b_held
    lda #SQ1_ON
    sta SQ1_VOL
    lda pad_new
    and #BTN_B
    beq @b_done
    ; Fresh press: (re)write the period and reload the length counter.
    ; Writing $4003 restarts the waveform, so only do it on the edge.
    lda #<TONE_PERIOD
    sta SQ1_LO
    lda #>TONE_PERIOD
    sta SQ1_HI
    jmp @b_done
@b_up:
    lda #0
    sta b_held
    lda #SQ1_OFF
    sta SQ1_VOL
@b_done:

    ; 4. Sprite.
    jsr build_oam
    lda #0
    sta OAMADDR
    lda #>oam
    sta OAMDMA

    ; Keep the scroll pinned at (0, 0) on nametable 0.
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    lda #CTRL_VALUE
    sta PPUCTRL

    pla
    tay
    pla
    tax
    pla
    rti
.endproc

; read_joypad: strobe controller 1, then shift its 8 buttons into `pad`.
; Button order on the wire is A, B, Select, Start, Up, Down, Left, Right;
; each bit is rotated in from the right, so A ends up in bit 7.
; Clobbers A.
.proc read_joypad
    lda #1
    sta JOY1            ; strobe high: latch the buttons
    sta pad             ; sentinel bit: falls out into carry after 8 ROLs
    lsr a               ; A = 0
    sta JOY1            ; strobe low: start shifting
@loop:
    lda JOY1
    lsr a               ; bit 0 of the port -> carry
    rol pad             ; carry -> bit 0, sentinel moves up
    bcc @loop           ; the sentinel reaches carry after the 8th bit
    rts
.endproc

; build_oam: sprite 0 = solid tile at (player_x, player_y).
; OAM Y is "scanline minus one", so Y-1 is stored to put the top-left
; pixel exactly on screen row player_y.  Sprites 1-63 stay at Y=$FF.
; Clobbers A.
.proc build_oam
    lda player_y
    sec
    sbc #1
    sta oam + 0         ; Y
    lda #SPRITE_TILE
    sta oam + 1         ; tile index
    lda #%00000000
    sta oam + 2         ; attributes: palette 0, in front, no flip
    lda player_x
    sta oam + 3         ; X
    rts
.endproc

.proc irq
    rti
.endproc

; ---------------------------------------------------------------------------
; Read-only data
; ---------------------------------------------------------------------------
.segment "RODATA"

palettes:
    ; Background palettes. $3F00 = universal background colour.
    .byte $0F, $12, $00, $10    ; BG 0: black, blue (the BG tile), unused
    .byte $0F, $00, $10, $30    ; BG 1-3: unused
    .byte $0F, $00, $10, $30
    .byte $0F, $00, $10, $30
    ; Sprite palettes ($3F10 mirrors $3F00, so it repeats $0F).
    .byte $0F, $00, $10, $16    ; SPR 0: colour 3 = red (the sprite tile)
    .byte $0F, $00, $10, $30    ; SPR 1-3: unused
    .byte $0F, $00, $10, $30
    .byte $0F, $00, $10, $30

; ---------------------------------------------------------------------------
; Interrupt vectors
; ---------------------------------------------------------------------------
.segment "VECTORS"
    .addr nmi, reset, irq

; ---------------------------------------------------------------------------
; CHR-ROM: pattern table 0 holds the two tiles used; the rest is blank.
; A tile is 16 bytes: 8 rows of bit-plane 0, then 8 rows of bit-plane 1.
; Pixel colour index = plane0 bit + 2 * plane1 bit.
; ---------------------------------------------------------------------------
.segment "CHARS"
    ; Tile 0: plane 0 all ones, plane 1 all zeros -> colour 1 everywhere.
    .byte $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile 1: both planes all ones -> colour 3 everywhere.
    .byte $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF
    .byte $FF, $FF, $FF, $FF, $FF, $FF, $FF, $FF
    .res $2000 - 32, $00
