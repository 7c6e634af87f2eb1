; dodge.s - "Dodge": a small NES arcade game for Retrolua bots
; (NROM-128, iNES mapper 0).  See README.md for the rules and the RAM map.
;
; The player (a blue face) moves with the d-pad, 2 px per frame, inside a
; fixed playfield.  Six red hazards fall from the top at pseudo-random x and
; at speeds that grow with the level.  Touching a hazard costs a life and
; gives 60 frames of invulnerability.  A yellow coin sits at a pseudo-random
; spot; touching it scores 1 point and moves it.  Every 5 points is a level.
; 50 points wins, 0 lives is game over; Start then restarts.
;
; Determinism: all RAM is cleared at reset, the random generator is a 16-bit
; LFSR seeded with a constant, stepped every frame and mixed with that
; frame's joypad byte.  The same input sequence always gives the same game,
; and different inputs give different hazard and coin patterns.
;
; Structure: the reset code initialises the hardware and then idles.  *All*
; per-frame work, including the only joypad poll of the frame, happens in
; the NMI handler.
;
; Assemble/link:  ca65 dodge.s && ld65 -C nrom.cfg dodge.o -o dodge.nes

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
NOISE_VOL = $400C
NOISE_LO  = $400E
NOISE_HI  = $400F
DMC_FREQ  = $4010
OAMDMA    = $4014
SND_CHN   = $4015
JOY1      = $4016
JOY2      = $4017       ; read: controller 2 (writes go to the APU frame counter)
APU_FRAME = $4017

; ---------------------------------------------------------------------------
; Fixed RAM layout (zero page).  README.md documents every byte.
; ---------------------------------------------------------------------------
frame_lo  = $00         ; frame counter, u16 LE, +1 per NMI
frame_hi  = $01
pad       = $02         ; joypad 1 byte read this frame (bit7=A ... bit0=Right)
pad_prev  = $03         ; previous frame's joypad byte
pad_new   = $04         ; buttons newly pressed this frame
state     = $05         ; 0 playing, 1 game over, 2 won
player_x  = $06         ; player sprite left edge, 8..240
player_y  = $07         ; player sprite top edge, 40..208
lives     = $08         ; starts at 3
score_lo  = $09         ; score, u16 LE
score_hi  = $0A
level     = $0B         ; 0..9, = min(score / 5, 9)
invuln    = $0C         ; invulnerability frames left (0 = vulnerable)
coin_x    = $0D         ; coin left edge, 8..240
coin_y    = $0E         ; coin top edge, 40..208
lfsr_lo   = $0F         ; random generator state, u16 LE, never 0
lfsr_hi   = $10
tmp       = $11         ; scratch
pad2      = $12         ; two-player build only: joypad 2 byte read this frame
p2_x      = $13         ; two-player build only: player 2 sprite left edge
p2_y      = $14         ; two-player build only: player 2 sprite top edge
hz_x      = $20         ; 6 bytes: hazard left edge
hz_y      = $28         ; 6 bytes: hazard top edge (HIDDEN_Y while waiting)
hz_frac   = $30         ; 6 bytes: hazard y fraction (1/256 px)
hz_spd    = $38         ; 6 bytes: hazard fall speed (1/16 px per frame)
hz_wait   = $40         ; 6 bytes: frames until the hazard (re)spawns, 0 = falling

oam       = $0200       ; shadow OAM, DMA'd to the PPU every frame

; Joypad bit masks (first bit shifted out of $4016 ends up in bit 7)
BTN_A      = %10000000
BTN_B      = %01000000
BTN_SELECT = %00100000
BTN_START  = %00010000
BTN_UP     = %00001000
BTN_DOWN   = %00000100
BTN_LEFT   = %00000010
BTN_RIGHT  = %00000001

; ---------------------------------------------------------------------------
; Game constants
; ---------------------------------------------------------------------------
STATE_PLAYING = 0
STATE_OVER    = 1
STATE_WON     = 2

MIN_X      = 8          ; playfield for the player's and coin's top-left corner
MAX_X      = 240
MIN_Y      = 40
MAX_Y      = 208
PLAYER_SPEED = 2        ; px per frame on each axis
START_X    = 124
START_Y    = 184
START_LIVES = 3

HAZARDS    = 6          ; fixed number of hazard slots
SPAWN_Y    = 24         ; a hazard appears with its top edge here
BOTTOM_Y   = 216        ; and leaves once its top edge reaches this
HIDDEN_Y   = $F0        ; hz_y of a waiting hazard
SPEED_BASE = 12         ; fall speed = SPEED_BASE + 6*level + (0..15), 1/16 px/frame
SPEED_PER_LEVEL = 6
RESPAWN_WAIT_MASK = 15  ; after leaving, a hazard waits 1 + (rand & 15) frames

HIT_DIST   = 7          ; hit when |dx| < 7 and |dy| < 7
COIN_DIST  = 8          ; coin taken when |dx| < 8 and |dy| < 8
COIN_AWAY  = 32         ; a new coin is at least this far from the player on one axis
INVULN_FRAMES = 60
POINTS_PER_LEVEL = 5
MAX_LEVEL  = 9
WIN_SCORE  = 50

LFSR_SEED  = $ACE1
LFSR_TAPS  = $B4        ; Galois taps $B400: x^16 + x^14 + x^13 + x^11 + 1

; Tiles (pattern table 0)
TILE_BLANK  = $00
TILE_PLAYER = $01
TILE_HAZARD = $02
TILE_COIN   = $03
TILE_HEART  = $04
TILE_L      = $05
TILE_DIGIT0 = $10

HUD_Y      = 16         ; screen row of the score / level / lives sprites

; PPUCTRL: NMI on, 8x8 sprites, both pattern tables at $0000, nametable $2000.
CTRL_VALUE = %10000000
; PPUMASK: show background + sprites, including the leftmost 8 pixels.
MASK_VALUE = %00011110

; OAM slots
OAM_PLAYER = 0 * 4
OAM_HAZARD = 1 * 4      ; 6 slots
OAM_COIN   = 7 * 4
OAM_SCORE  = 8 * 4      ; tens, ones
OAM_LEVEL  = 10 * 4     ; "L", digit
OAM_LIVES  = 12 * 4     ; heart, digit
OAM_P2     = 14 * 4     ; two-player build only: player 2
P2_START_X = START_X + 32

; ---------------------------------------------------------------------------
; iNES header
; ---------------------------------------------------------------------------
.segment "HEADER"
    .byte "NES", $1A
    .byte 1             ; PRG-ROM size in 16 KB units
    .byte 1             ; CHR-ROM size in 8 KB units
    .byte %00000001     ; mapper 0 (low nibble), no battery, vertical mirroring
    .byte %00000000     ; mapper 0 (high nibble), plain iNES
    .byte 0, 0, 0, 0, 0, 0, 0, 0

; ---------------------------------------------------------------------------
; Code
; ---------------------------------------------------------------------------
.segment "CODE"

.proc reset
    sei                 ; no IRQs, ever
    cld
    ldx #$40
    stx APU_FRAME       ; 4-step frame counter, IRQ inhibited
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

    ; Clear all 2 KB of work RAM; shadow OAM gets $FF (every sprite hidden).
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

    ; Nametables $2000-$27FF: blank tile 0 and attribute 0 everywhere, so
    ; the whole background is the universal background colour.
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #TILE_BLANK
    ldy #8              ; 8 * 256 = 2048 bytes
    ldx #0
@nametable:
    sta PPUDATA
    inx
    bne @nametable
    dey
    bne @nametable

    ; Sound: pulse 1 (coin) and noise (hit); both silent until triggered.
    lda #%00001001
    sta SND_CHN
    lda #%00001000      ; sweep disabled
    sta SQ1_SWEEP

    ; Random generator and the first game.
    lda #<LFSR_SEED
    sta lfsr_lo
    lda #>LFSR_SEED
    sta lfsr_hi
    jsr init_game
    jsr build_oam

    ; Upload the shadow OAM once so the first frame shows the sprites.
    lda #0
    sta OAMADDR
    lda #>oam
    sta OAMDMA

    ; Wait for a vblank, then turn on rendering and NMI.  The PPUSTATUS read
    ; that sees the flag clears it, so the first NMI is the next vblank.
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
;   1. PPU work while vblank lasts: OAM DMA of the sprites built by the
;      previous NMI, background colour for the current state, scroll.
;   2. frame counter += 1
;   3. poll joypad 1 (the only poll of the frame)
;   4. step the random generator and mix in the joypad byte
;   5. game logic (or, when the game is over/won, wait for Start)
;   6. build the shadow OAM for the next NMI's DMA
; ---------------------------------------------------------------------------
.proc nmi
    pha
    txa
    pha
    tya
    pha

    ; 1. PPU.
    lda #0
    sta OAMADDR
    lda #>oam
    sta OAMDMA
    bit PPUSTATUS       ; reset the $2005/$2006 write latch
    lda #$3F
    sta PPUADDR
    lda #$00
    sta PPUADDR
    ldx state
    lda bg_colours, x
    sta PPUDATA
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    lda #CTRL_VALUE
    sta PPUCTRL

    ; 2. Frame counter.
    inc frame_lo
    bne :+
    inc frame_hi
:

    ; 3. Joypad.
    lda pad
    sta pad_prev
    jsr read_joypad
.ifdef TWO_PLAYERS
    jsr read_joypad2
.endif
    lda pad_prev
    eor #$FF
    and pad
    sta pad_new

    ; 4. Random generator: one draw (8 LFSR steps), then XOR the pad into the low byte.
    jsr rand
    eor pad
    sta lfsr_lo
    ora lfsr_hi
    bne :+
    lda #<LFSR_SEED     ; the state must never be 0
    sta lfsr_lo
    lda #>LFSR_SEED
    sta lfsr_hi
:

    ; 5. Game logic.
    lda state
    beq @playing
    lda pad_new         ; game over or won: a new press of Start restarts
    and #BTN_START
    beq @done
    jsr init_game
    jmp @done
@playing:
    jsr move_player
.ifdef TWO_PLAYERS
    jsr swap_players    ; player 2 moves and takes coins as player 1 does
    jsr move_player
    jsr swap_players
.endif
    jsr move_hazards
    jsr check_hazards
    lda state
    bne @done           ; the last life went this frame
    jsr check_coin
.ifdef TWO_PLAYERS
    jsr swap_players
    jsr check_coin
    jsr swap_players
.endif
@done:

    ; 6. Sprites for the next frame.
    jsr build_oam

    pla
    tay
    pla
    tax
    pla
    rti
.endproc

; init_game: start a new game (power-on and restart).  The random generator
; is not reseeded, so every restart plays differently.
.proc init_game
    lda #START_X
    sta player_x
    lda #START_Y
    sta player_y
    lda #START_LIVES
    sta lives
    lda #0
    sta score_lo
    sta score_hi
    sta level
    sta invuln
    sta state
    ldx #HAZARDS - 1
@hazard:
    lda #HIDDEN_Y
    sta hz_y, x
    lda #0
    sta hz_x, x
    sta hz_frac, x
    sta hz_spd, x
    lda first_wait, x
    sta hz_wait, x
    dex
    bpl @hazard
.ifdef TWO_PLAYERS
    lda #P2_START_X
    sta p2_x
    lda #START_Y
    sta p2_y
.endif
    jmp place_coin
.endproc

; move_player: d-pad moves 2 px per frame on each axis, clamped to the
; playfield.  Opposite directions held together cancel out.
.proc move_player
    lda pad
    and #BTN_RIGHT
    beq @no_right
    lda player_x
    clc
    adc #PLAYER_SPEED
    cmp #MAX_X + 1
    bcc :+
    lda #MAX_X
:   sta player_x
@no_right:
    lda pad
    and #BTN_LEFT
    beq @no_left
    lda player_x
    sec
    sbc #PLAYER_SPEED
    cmp #MIN_X
    bcs :+
    lda #MIN_X
:   sta player_x
@no_left:
    lda pad
    and #BTN_DOWN
    beq @no_down
    lda player_y
    clc
    adc #PLAYER_SPEED
    cmp #MAX_Y + 1
    bcc :+
    lda #MAX_Y
:   sta player_y
@no_down:
    lda pad
    and #BTN_UP
    beq @no_up
    lda player_y
    sec
    sbc #PLAYER_SPEED
    cmp #MIN_Y
    bcs :+
    lda #MIN_Y
:   sta player_y
@no_up:
    rts
.endproc

; move_hazards: for each slot 0..5 in order, a waiting hazard counts down
; and spawns at the top when its wait reaches 0; a falling hazard moves down
; by its speed and, once its top edge reaches BOTTOM_Y, leaves and waits.
.proc move_hazards
    ldx #0
@loop:
    lda hz_wait, x
    beq @falling
    dec hz_wait, x
    bne @next
    ; Spawn: random x, top of the playfield, speed from the level.
    jsr rand_x
    sta hz_x, x
    lda #SPAWN_Y
    sta hz_y, x
    lda #0
    sta hz_frac, x
    lda #SPEED_BASE     ; tmp = SPEED_BASE + SPEED_PER_LEVEL * level
    ldy level
    beq @base_done
@per_level:
    clc
    adc #SPEED_PER_LEVEL
    dey
    bne @per_level
@base_done:
    sta tmp
    jsr rand
    and #15
    clc
    adc tmp
    sta hz_spd, x
    jmp @next
@falling:
    ; y.frac += speed / 16 (speed is in 1/16 px per frame)
    lda hz_spd, x
    lsr a
    lsr a
    lsr a
    lsr a
    sta tmp             ; whole pixels
    lda hz_spd, x
    asl a
    asl a
    asl a
    asl a               ; fraction, in 1/256 px
    clc
    adc hz_frac, x
    sta hz_frac, x
    lda hz_y, x
    adc tmp
    sta hz_y, x
    cmp #BOTTOM_Y
    bcc @next
    ; Left the playfield: hide and wait 1..16 frames.
    lda #HIDDEN_Y
    sta hz_y, x
    jsr rand
    and #RESPAWN_WAIT_MASK
    clc
    adc #1
    sta hz_wait, x
@next:
    inx
    cpx #HAZARDS
    bne @loop
    rts
.endproc

; check_hazards: while invulnerable, count the timer down instead.
; Otherwise the first falling hazard overlapping the player (|dx| < 7 and
; |dy| < 7) costs a life and starts 60 frames of invulnerability.
.proc check_hazards
    lda invuln
    beq @vulnerable
    dec invuln
    rts
@vulnerable:
    ldx #0
@loop:
    lda hz_wait, x
    bne @next
    lda hz_x, x
    sta tmp
    lda player_x
    jsr abs_diff
    cmp #HIT_DIST
    bcs @next
    lda hz_y, x
    sta tmp
    lda player_y
    jsr abs_diff
    cmp #HIT_DIST
    bcs @next
    ; Hit.
    lda #INVULN_FRAMES
    sta invuln
    dec lives
    bne :+
    lda #STATE_OVER
    sta state
:   lda #%00011111      ; noise: length counter on, constant volume 15
    sta NOISE_VOL
    lda #$0A
    sta NOISE_LO
    lda #%00010000      ; length index 2 (20 half-frames, ~167 ms)
    sta NOISE_HI
    rts
@next:
    inx
    cpx #HAZARDS
    bne @loop
    rts
.endproc

; check_coin: the coin is taken when |dx| < 8 and |dy| < 8: score + 1,
; level = min(score / 5, 9), 50 points wins, and the coin moves.
.proc check_coin
    lda coin_x
    sta tmp
    lda player_x
    jsr abs_diff
    cmp #COIN_DIST
    bcs @rts
    lda coin_y
    sta tmp
    lda player_y
    jsr abs_diff
    cmp #COIN_DIST
    bcs @rts
    inc score_lo
    bne :+
    inc score_hi
:
    ; Level.
    ldx #MAX_LEVEL
    lda score_hi
    bne @set_level
    ldx #0
    lda score_lo
@div:
    cmp #POINTS_PER_LEVEL
    bcc @set_level
    sbc #POINTS_PER_LEVEL
    inx
    cpx #MAX_LEVEL
    bne @div
@set_level:
    stx level
    ; Win?
    lda score_hi
    bne @won
    lda score_lo
    cmp #WIN_SCORE
    bcc @beep
@won:
    lda #STATE_WON
    sta state
@beep:
    lda #%10011000      ; pulse 1: duty 50%, length counter on, volume 8
    sta SQ1_VOL
    lda #$A9            ; period 169: 1789773 / (16 * 170) ~= 658 Hz
    sta SQ1_LO
    lda #%00000000      ; length index 0 (10 half-frames, ~83 ms), period high 0
    sta SQ1_HI
    jmp place_coin
@rts:
    rts
.endproc

; place_coin: random spot in the playfield, re-rolled until it is at least
; 32 px from the player on one axis.
.proc place_coin
@again:
    jsr rand_x
    sta coin_x
    jsr rand_y
    sta coin_y
    lda coin_x
    sta tmp
    lda player_x
    jsr abs_diff
    cmp #COIN_AWAY
    bcs @ok
    lda coin_y
    sta tmp
    lda player_y
    jsr abs_diff
    cmp #COIN_AWAY
    bcc @again
@ok:
    rts
.endproc

; rand: step the LFSR 8 times (Galois, taps $B400, shifting right) and return
; the new low byte in A.  Preserves X, clobbers Y.
.proc rand
    ldy #8
@step:
    lsr lfsr_hi
    ror lfsr_lo
    bcc :+
    lda lfsr_hi
    eor #LFSR_TAPS
    sta lfsr_hi
:   dey
    bne @step
    lda lfsr_lo
    rts
.endproc

; rand_x: A = MIN_X + (rand mod 233), i.e. 8..240.  Preserves X.
.proc rand_x
    jsr rand
    cmp #MAX_X - MIN_X + 1
    bcc :+
    sbc #MAX_X - MIN_X + 1
:   clc
    adc #MIN_X
    rts
.endproc

; rand_y: A = MIN_Y + (rand mod 169), i.e. 40..208.  Preserves X.
.proc rand_y
    jsr rand
    cmp #MAX_Y - MIN_Y + 1
    bcc :+
    sbc #MAX_Y - MIN_Y + 1
:   clc
    adc #MIN_Y
    rts
.endproc

; abs_diff: A = |A - tmp| for unsigned bytes.  Preserves X and Y.
.proc abs_diff
    sec
    sbc tmp
    bcs :+
    eor #$FF
    adc #1              ; carry is clear here
:   rts
.endproc

; read_joypad: strobe controller 1, then shift its 8 buttons into `pad`
; (A ends up in bit 7, Right in bit 0).  Clobbers A.
.proc read_joypad
    lda #1
    sta JOY1            ; strobe high: latch the buttons
    sta pad             ; sentinel bit: falls out into carry after 8 ROLs
    lsr a               ; A = 0
    sta JOY1            ; strobe low: start shifting
@loop:
    lda JOY1
    lsr a               ; bit 0 of the port -> carry
    rol pad
    bcc @loop
    rts
.endproc

.ifdef TWO_PLAYERS
; read_joypad2: controller 2's 8 buttons into `pad2` (latched by read_joypad's
; strobe).  Clobbers A.
.proc read_joypad2
    lda #1
    sta pad2            ; sentinel bit, as in read_joypad
@loop:
    lda JOY2
    lsr a
    rol pad2
    bcc @loop
    rts
.endproc

; swap_players: exchange player 1's pad and position with player 2's, so
; player 1's routines move player 2.  Clobbers A and X.
.proc swap_players
    lda pad
    ldx pad2
    sta pad2
    stx pad
    lda player_x
    ldx p2_x
    sta p2_x
    stx player_x
    lda player_y
    ldx p2_y
    sta p2_y
    stx player_y
    rts
.endproc
.endif

; build_oam: fill the shadow OAM from the game state.  OAM Y is "screen row
; minus one".  Slot 0 player (blinks while invulnerable), 1-6 hazards
; (hidden while waiting), 7 coin, 8-9 score, 10-11 level, 12-13 lives.
.proc build_oam
    ; Player.
    lda player_y
    sec
    sbc #1
    tay
    lda state
    bne :+              ; no blinking once the game has ended
    lda invuln
    and #%00000100
    beq :+
    ldy #$FF
:   sty oam + OAM_PLAYER + 0
    lda #TILE_PLAYER
    sta oam + OAM_PLAYER + 1
    lda #0
    sta oam + OAM_PLAYER + 2
    lda player_x
    sta oam + OAM_PLAYER + 3
.ifdef TWO_PLAYERS
    lda p2_y            ; player 2: the same face in the HUD's palette
    sec
    sbc #1
    sta oam + OAM_P2 + 0
    lda #TILE_PLAYER
    sta oam + OAM_P2 + 1
    lda #3
    sta oam + OAM_P2 + 2
    lda p2_x
    sta oam + OAM_P2 + 3
.endif

    ; Hazards.
    ldx #0
    ldy #OAM_HAZARD
@hazard:
    lda hz_wait, x
    beq :+
    lda #$FF
    bne :++
:   lda hz_y, x
    sec
    sbc #1
:   sta oam + 0, y
    lda #TILE_HAZARD
    sta oam + 1, y
    lda #1
    sta oam + 2, y
    lda hz_x, x
    sta oam + 3, y
    iny
    iny
    iny
    iny
    inx
    cpx #HAZARDS
    bne @hazard

    ; Coin.
    lda coin_y
    sec
    sbc #1
    sta oam + OAM_COIN + 0
    lda #TILE_COIN
    sta oam + OAM_COIN + 1
    lda #2
    sta oam + OAM_COIN + 2
    lda coin_x
    sta oam + OAM_COIN + 3

    ; HUD: score (two digits of the low byte) at x 16, level at x 116,
    ; lives at x 224.  All HUD sprites use palette 3.
    lda score_lo
    ldx #TILE_DIGIT0
@tens:
    cmp #10
    bcc :+
    sbc #10
    inx
    bne @tens
:   clc
    adc #TILE_DIGIT0
    sta oam + OAM_SCORE + 5
    stx oam + OAM_SCORE + 1
    lda #TILE_L
    sta oam + OAM_LEVEL + 1
    lda level
    clc
    adc #TILE_DIGIT0
    sta oam + OAM_LEVEL + 5
    lda #TILE_HEART
    sta oam + OAM_LIVES + 1
    lda lives
    clc
    adc #TILE_DIGIT0
    sta oam + OAM_LIVES + 5
    ldx #0
@hud:
    lda #HUD_Y - 1
    sta oam + OAM_SCORE + 0, x
    lda #3
    sta oam + OAM_SCORE + 2, x
    lda hud_x, x
    sta oam + OAM_SCORE + 3, x
    inx
    inx
    inx
    inx
    cpx #6 * 4
    bne @hud
    rts
.endproc

.proc irq
    rti
.endproc

; ---------------------------------------------------------------------------
; Read-only data
; ---------------------------------------------------------------------------
.segment "RODATA"

; Frames each hazard slot waits at the start of a game.
first_wait:
    .byte 1, 25, 49, 73, 97, 121

; X of the six HUD sprites, indexed by OAM offset (only every 4th byte used).
hud_x:
    .byte 16, 0, 0, 0, 24, 0, 0, 0      ; score tens, ones
    .byte 116, 0, 0, 0, 124, 0, 0, 0    ; "L", level
    .byte 224, 0, 0, 0, 232             ; heart, lives

; Universal background colour by state: playing, game over, won.
bg_colours:
    .byte $01, $06, $09

palettes:
    ; Background palettes. $3F00 (the universal background colour) is
    ; rewritten every frame from bg_colours.
    .byte $01, $00, $10, $30
    .byte $01, $00, $10, $30
    .byte $01, $00, $10, $30
    .byte $01, $00, $10, $30
    ; Sprite palettes ($3F10 mirrors $3F00).
    .byte $01, $21, $30, $0F    ; SPR 0 player: light blue, white, black
    .byte $01, $16, $27, $0F    ; SPR 1 hazard: red, orange
    .byte $01, $28, $38, $18    ; SPR 2 coin: yellow, pale yellow, dark yellow
    .byte $01, $30, $10, $00    ; SPR 3 HUD: white

; ---------------------------------------------------------------------------
; Interrupt vectors
; ---------------------------------------------------------------------------
.segment "VECTORS"
    .addr nmi, reset, irq

; ---------------------------------------------------------------------------
; CHR-ROM: pattern table 0.  A tile is 16 bytes: 8 rows of bit-plane 0, then
; 8 rows of bit-plane 1; pixel colour index = plane0 bit + 2 * plane1 bit.
; Art: '.' = 0 (transparent), '1'-'3' = colour index.
; ---------------------------------------------------------------------------
.segment "CHARS"
    ; Tile $00: blank
    ;   ........
    ;   ........
    ;   ........
    ;   ........
    ;   ........
    ;   ........
    ;   ........
    ;   ........
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $01: player
    ;   ..1111..
    ;   .111111.
    ;   11211211
    ;   11211211
    ;   11111111
    ;   13111131
    ;   11333311
    ;   .111111.
    .byte $3C, $7E, $DB, $DB, $FF, $FF, $FF, $7E
    .byte $00, $00, $24, $24, $00, $42, $3C, $00
    ; Tile $02: hazard
    ;   1..11..1
    ;   .111111.
    ;   .122221.
    ;   11222211
    ;   11222211
    ;   .122221.
    ;   .111111.
    ;   1..11..1
    .byte $99, $7E, $42, $C3, $C3, $42, $7E, $99
    .byte $00, $00, $3C, $3C, $3C, $3C, $00, $00
    ; Tile $03: coin
    ;   ..1111..
    ;   .112211.
    ;   11211311
    ;   11211311
    ;   11211311
    ;   11211311
    ;   .113311.
    ;   ..1111..
    .byte $3C, $66, $DF, $DF, $DF, $DF, $7E, $3C
    .byte $00, $18, $24, $24, $24, $24, $18, $00
    ; Tile $04: heart
    ;   .11.11..
    ;   1121111.
    ;   1211111.
    ;   1111111.
    ;   .11111..
    ;   ..111...
    ;   ...1....
    ;   ........
    .byte $6C, $DE, $BE, $FE, $7C, $38, $10, $00
    .byte $00, $20, $40, $00, $00, $00, $00, $00
    ; Tile $05: letter L
    ;   11......
    ;   11......
    ;   11......
    ;   11......
    ;   11......
    ;   11......
    ;   111111..
    ;   ........
    .byte $C0, $C0, $C0, $C0, $C0, $C0, $FC, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    .res ($10 - 6) * 16, $00    ; tiles $06-$0F unused
    ; Tile $10: digit 0
    ;   .1111...
    ;   11..11..
    ;   11.111..
    ;   111111..
    ;   111.11..
    ;   11..11..
    ;   .1111...
    ;   ........
    .byte $78, $CC, $DC, $FC, $EC, $CC, $78, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $11: digit 1
    ;   ..11....
    ;   .111....
    ;   ..11....
    ;   ..11....
    ;   ..11....
    ;   ..11....
    ;   111111..
    ;   ........
    .byte $30, $70, $30, $30, $30, $30, $FC, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $12: digit 2
    ;   .1111...
    ;   11..11..
    ;   ....11..
    ;   ...11...
    ;   ..11....
    ;   .11.....
    ;   111111..
    ;   ........
    .byte $78, $CC, $0C, $18, $30, $60, $FC, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $13: digit 3
    ;   .1111...
    ;   11..11..
    ;   ....11..
    ;   ..111...
    ;   ....11..
    ;   11..11..
    ;   .1111...
    ;   ........
    .byte $78, $CC, $0C, $38, $0C, $CC, $78, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $14: digit 4
    ;   ...111..
    ;   ..1111..
    ;   .11.11..
    ;   11..11..
    ;   1111111.
    ;   ....11..
    ;   ....11..
    ;   ........
    .byte $1C, $3C, $6C, $CC, $FE, $0C, $0C, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $15: digit 5
    ;   111111..
    ;   11......
    ;   11111...
    ;   ....11..
    ;   ....11..
    ;   11..11..
    ;   .1111...
    ;   ........
    .byte $FC, $C0, $F8, $0C, $0C, $CC, $78, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $16: digit 6
    ;   ..111...
    ;   .11.....
    ;   11......
    ;   11111...
    ;   11..11..
    ;   11..11..
    ;   .1111...
    ;   ........
    .byte $38, $60, $C0, $F8, $CC, $CC, $78, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $17: digit 7
    ;   111111..
    ;   ....11..
    ;   ...11...
    ;   ..11....
    ;   .11.....
    ;   .11.....
    ;   .11.....
    ;   ........
    .byte $FC, $0C, $18, $30, $60, $60, $60, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $18: digit 8
    ;   .1111...
    ;   11..11..
    ;   11..11..
    ;   .1111...
    ;   11..11..
    ;   11..11..
    ;   .1111...
    ;   ........
    .byte $78, $CC, $CC, $78, $CC, $CC, $78, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    ; Tile $19: digit 9
    ;   .1111...
    ;   11..11..
    ;   11..11..
    ;   .11111..
    ;   ....11..
    ;   ...11...
    ;   .111....
    ;   ........
    .byte $78, $CC, $CC, $7C, $0C, $18, $70, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00
    .res $2000 - $1A * 16, $00       ; tiles $1A-$1FF unused
