;; Retrolua Game Boy test ROM (DMG, 32 KiB, ROM only).
;;
;; Assembled with sdasgb, linked with sdldgb, turned into a .gb image by
;; `makebin -Z`, which writes the cartridge header (logo, title, type,
;; header and global checksums). See README.md for the RAM layout that the
;; frontend tests rely on.

;; ---------------------------------------------------------------------------
;; Hardware registers (offsets from $FF00, for ldh)
;; ---------------------------------------------------------------------------
rP1   = 0x00          ; joypad
rIF   = 0x0F          ; interrupt flags
rNR10 = 0x10          ; ch1 sweep
rNR11 = 0x11          ; ch1 duty / length
rNR12 = 0x12          ; ch1 volume envelope (upper 5 bits 0 = DAC off)
rNR13 = 0x13          ; ch1 period low
rNR14 = 0x14          ; ch1 trigger / period high
rNR50 = 0x24          ; master volume
rNR51 = 0x25          ; panning
rNR52 = 0x26          ; APU on/off
rLCDC = 0x40
rSCY  = 0x42
rSCX  = 0x43
rLY   = 0x44
rBGP  = 0x47
rOBP0 = 0x48
rOBP1 = 0x49
rIE   = 0xFF          ; interrupt enable

;; ---------------------------------------------------------------------------
;; Fixed RAM layout (WRAM $C000...)
;; ---------------------------------------------------------------------------
wFrame   = 0xC000     ; u16 LE frame counter
wJoy     = 0xC002     ; joypad this frame (1 = pressed)
wPlayerX = 0xC003     ; screen X of the sprite's top-left pixel
wPlayerY = 0xC004     ; screen Y of the sprite's top-left pixel
wACount  = 0xC005     ; new presses of A
wBHeld   = 0xC006     ; 1 while B is held
wJoyPrev = 0xC007     ; previous frame's joypad byte

;; Joypad bits in wJoy
J_RIGHT  = 0
J_LEFT   = 1
J_UP     = 2
J_DOWN   = 3
J_A      = 4
J_B      = 5
J_SELECT = 6
J_START  = 7

START_X  = 80
START_Y  = 72
MAX_X    = 152        ; 160 - 8: sprite fully visible
MAX_Y    = 136        ; 144 - 8

;; Channel 1 period value for ~440 Hz: f = 131072 / (2048 - x), x = 1750
TONE     = 1750

OAM      = 0xFE00

	.area ROM (ABS)

;; ---------------------------------------------------------------------------
;; Interrupt vectors: only VBlank is enabled; its handler just returns and
;; the main loop (woken from HALT) does the frame's work.
;; ---------------------------------------------------------------------------
	.org 0x0040
	reti

;; ---------------------------------------------------------------------------
;; Entry point. $0104-$014F (logo, title, checksums...) is filled by makebin.
;; ---------------------------------------------------------------------------
	.org 0x0100
	nop
	jp start

	.org 0x0150
start:
	di
	ld sp, #0xE000        ; stack at the top of WRAM (grows down from $DFFF)

	;; Turn the LCD off, but only during VBlank (LY >= 144).
1$:	ldh a, (rLY)
	cp #144
	jr c, 1$
	xor a
	ldh (rLCDC), a

	;; Tiles 0-2 at $8000 (only these are used; the rest of VRAM is left as is).
	ld hl, #0x8000
	ld de, #tiles
	ld b, #(tiles_end - tiles)
2$:	ld a, (de)
	inc de
	ld (hl+), a
	dec b
	jr nz, 2$

	;; Fill the whole BG map $9800 (32x32 = 4 x 256 bytes) with tile 1.
	ld hl, #0x9800
	ld a, #1
	ld bc, #0x0004        ; b = 0 -> 256 iterations, c = 4 rounds
3$:	ld (hl+), a
	dec b
	jr nz, 3$
	dec c
	jr nz, 3$

	;; Clear OAM (Y = 0 hides every sprite). Safe: LCD is off.
	ld hl, #OAM
	ld bc, #160
	call clear_mem

	;; Clear our WRAM variables, then set the start position.
	ld hl, #0xC000
	ld bc, #16
	call clear_mem
	ld a, #START_X
	ld (wPlayerX), a
	ld a, #START_Y
	ld (wPlayerY), a
	call write_oam

	;; Palettes and scroll.
	ld a, #0xE4           ; identity: colour n -> shade n (0 white .. 3 black)
	ldh (rBGP), a
	ldh (rOBP0), a
	ldh (rOBP1), a
	xor a
	ldh (rSCX), a
	ldh (rSCY), a

	;; Sound: APU on, master volume max on both sides, channel 1 to both
	;; sides, channel 1 silent (DAC off) until B is pressed.
	ld a, #0x80
	ldh (rNR52), a
	ld a, #0x77
	ldh (rNR50), a
	ld a, #0x11
	ldh (rNR51), a
	xor a
	ldh (rNR10), a        ; no sweep
	ldh (rNR12), a        ; DAC off -> channel off
	ld a, #0x80           ; 50% duty, length 0
	ldh (rNR11), a

	;; LCD on: BG on, OBJ on (8x8), tile data $8000, BG map $9800.
	ld a, #0x93
	ldh (rLCDC), a

	;; Only the VBlank interrupt.
	ld a, #0x01
	ldh (rIE), a
	xor a
	ldh (rIF), a
	ei

;; ---------------------------------------------------------------------------
;; Main loop: one iteration per VBlank.
;; ---------------------------------------------------------------------------
main_loop:
	halt
	nop

	;; Frame counter (u16 LE).
	ld hl, #wFrame
	inc (hl)
	jr nz, 1$
	inc hl
	inc (hl)
1$:
	;; Previous joypad byte, then read the new one (once per frame).
	ld a, (wJoy)
	ld (wJoyPrev), a
	call read_joypad
	ld (wJoy), a
	ld c, a               ; c = held

	;; d = newly pressed = held & ~prev
	ld a, (wJoyPrev)
	cpl
	and c
	ld d, a

	;; A: count new presses.
	bit J_A, d
	jr z, 2$
	ld hl, #wACount
	inc (hl)
2$:
	;; B: flag and tone.
	bit J_B, c
	jr z, 3$
	ld a, #1
	ld (wBHeld), a
	bit J_B, d
	call nz, tone_on
	jr 4$
3$:	xor a
	ld (wBHeld), a
	ldh (rNR12), a        ; DAC off silences (and disables) channel 1
4$:
	;; D-pad: 1 pixel per frame, clamped to keep the sprite on screen.
	ld hl, #wPlayerX
	bit J_RIGHT, c
	jr z, 5$
	ld a, (hl)
	cp #MAX_X
	jr nc, 5$
	inc (hl)
5$:	bit J_LEFT, c
	jr z, 6$
	ld a, (hl)
	or a
	jr z, 6$
	dec (hl)
6$:	ld hl, #wPlayerY
	bit J_DOWN, c
	jr z, 7$
	ld a, (hl)
	cp #MAX_Y
	jr nc, 7$
	inc (hl)
7$:	bit J_UP, c
	jr z, 8$
	ld a, (hl)
	or a
	jr z, 8$
	dec (hl)
8$:
	;; Still inside VBlank: OAM is writable directly.
	call write_oam
	jr main_loop

;; ---------------------------------------------------------------------------
;; read_joypad: returns a = Start,Select,B,A,Down,Up,Left,Right (1 = pressed)
;; ---------------------------------------------------------------------------
read_joypad:
	ld a, #0x20           ; P15 high, P14 low: select the d-pad
	ldh (rP1), a
	ldh a, (rP1)
	ldh a, (rP1)          ; re-read to let the lines settle
	cpl
	and #0x0F
	ld b, a               ; b = d-pad in low nibble
	ld a, #0x10           ; P14 high, P15 low: select the buttons
	ldh (rP1), a
	ldh a, (rP1)
	ldh a, (rP1)
	ldh a, (rP1)
	ldh a, (rP1)
	ldh a, (rP1)
	ldh a, (rP1)
	cpl
	and #0x0F
	swap a
	or b
	ld b, a
	ld a, #0x30           ; deselect both
	ldh (rP1), a
	ld a, b
	ret

;; ---------------------------------------------------------------------------
;; tone_on: channel 1, 50% duty, volume 15, ~440 Hz, triggered.
;; ---------------------------------------------------------------------------
tone_on:
	ld a, #0xF0           ; volume 15, no envelope (DAC on)
	ldh (rNR12), a
	ld a, #0x80           ; duty 50%
	ldh (rNR11), a
	ld a, #<TONE
	ldh (rNR13), a
	ld a, #(0x80 | >TONE) ; trigger, no length, period high bits
	ldh (rNR14), a
	ret

;; ---------------------------------------------------------------------------
;; write_oam: sprite 0 at the player position.
;; OAM byte 0 = Y + 16, byte 1 = X + 8, byte 2 = tile 2, byte 3 = attrs 0.
;; ---------------------------------------------------------------------------
write_oam:
	ld hl, #OAM
	ld a, (wPlayerY)
	add a, #16
	ld (hl+), a
	ld a, (wPlayerX)
	add a, #8
	ld (hl+), a
	ld a, #2
	ld (hl+), a
	xor a
	ld (hl), a
	ret

;; ---------------------------------------------------------------------------
;; clear_mem: zero bc bytes from hl (bc > 0).
;; ---------------------------------------------------------------------------
clear_mem:
	xor a
	ld (hl+), a
	dec bc
	ld a, b
	or c
	jr nz, clear_mem
	ret

;; ---------------------------------------------------------------------------
;; Tile data, 2 bits per pixel: each row is (low plane byte, high plane byte).
;; ---------------------------------------------------------------------------
tiles:
	;; tile 0: blank (colour 0), unused
	.db 0x00,0x00, 0x00,0x00, 0x00,0x00, 0x00,0x00
	.db 0x00,0x00, 0x00,0x00, 0x00,0x00, 0x00,0x00
	;; tile 1: background, every pixel colour 1 (light grey with BGP = $E4)
	.db 0xFF,0x00, 0xFF,0x00, 0xFF,0x00, 0xFF,0x00
	.db 0xFF,0x00, 0xFF,0x00, 0xFF,0x00, 0xFF,0x00
	;; tile 2: player sprite, every pixel colour 3 (black with OBP0 = $E4)
	.db 0xFF,0xFF, 0xFF,0xFF, 0xFF,0xFF, 0xFF,0xFF
	.db 0xFF,0xFF, 0xFF,0xFF, 0xFF,0xFF, 0xFF,0xFF
tiles_end:
