// Core pixels to packed RGB with SSSE3 where the CPU has it (about ten times the scalar loop: the
// 3-byte output stride defeats the compiler's vectorizer). Chosen once at run time.
#include "retro_shim.h"

#include <stdint.h>
#include <string.h>

static void rgb565_scalar(const uint8_t *source, size_t count, uint8_t *target) {
    for (size_t i = 0; i < count; i++) {
        uint32_t pixel = (uint32_t)source[2 * i] | (uint32_t)source[2 * i + 1] << 8;
        uint32_t r = pixel >> 11, g = (pixel >> 5) & 63, b = pixel & 31;
        target[3 * i] = (uint8_t)(r << 3 | r >> 2);
        target[3 * i + 1] = (uint8_t)(g << 2 | g >> 4);
        target[3 * i + 2] = (uint8_t)(b << 3 | b >> 2);
    }
}

static void xrgb8888_scalar(const uint8_t *source, size_t count, uint8_t *target) {
    for (size_t i = 0; i < count; i++) {
        target[3 * i] = source[4 * i + 2];
        target[3 * i + 1] = source[4 * i + 1];
        target[3 * i + 2] = source[4 * i];
    }
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

// Eight pixels a step: channels widened in 16-bit lanes, packed to bytes, shuffled into RGB order.
__attribute__((target("ssse3"))) static void rgb565_ssse3(const uint8_t *source, size_t count, uint8_t *target) {
    const __m128i mask6 = _mm_set1_epi16(0x3F), mask5 = _mm_set1_epi16(0x1F);
    const __m128i rg_low = _mm_setr_epi8(0, 8, -1, 1, 9, -1, 2, 10, -1, 3, 11, -1, 4, 12, -1, 5);
    const __m128i b_low = _mm_setr_epi8(-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1);
    const __m128i rg_high = _mm_setr_epi8(13, -1, 6, 14, -1, 7, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i b_high = _mm_setr_epi8(-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, -1, -1, -1, -1, -1, -1);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128i pixels = _mm_loadu_si128((const __m128i *)(source + 2 * i));
        __m128i r = _mm_srli_epi16(pixels, 11);
        __m128i g = _mm_and_si128(_mm_srli_epi16(pixels, 5), mask6);
        __m128i b = _mm_and_si128(pixels, mask5);
        r = _mm_or_si128(_mm_slli_epi16(r, 3), _mm_srli_epi16(r, 2));
        g = _mm_or_si128(_mm_slli_epi16(g, 2), _mm_srli_epi16(g, 4));
        b = _mm_or_si128(_mm_slli_epi16(b, 3), _mm_srli_epi16(b, 2));
        __m128i rg = _mm_packus_epi16(r, g), bb = _mm_packus_epi16(b, b);
        __m128i low = _mm_or_si128(_mm_shuffle_epi8(rg, rg_low), _mm_shuffle_epi8(bb, b_low));
        __m128i high = _mm_or_si128(_mm_shuffle_epi8(rg, rg_high), _mm_shuffle_epi8(bb, b_high));
        _mm_storeu_si128((__m128i *)(target + 3 * i), low);
        _mm_storel_epi64((__m128i *)(target + 3 * i + 16), high);
    }
    rgb565_scalar(source + 2 * i, count - i, target + 3 * i);
}

// Four pixels a step: B, G, R, X bytes shuffled to R, G, B; twelve bytes stored as 8 + 4.
__attribute__((target("ssse3"))) static void xrgb8888_ssse3(const uint8_t *source, size_t count, uint8_t *target) {
    const __m128i order = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        __m128i rgb = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(source + 4 * i)), order);
        _mm_storel_epi64((__m128i *)(target + 3 * i), rgb);
        uint32_t last = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(rgb, 8));
        memcpy(target + 3 * i + 8, &last, 4);
    }
    xrgb8888_scalar(source + 4 * i, count - i, target + 3 * i);
}

static int has_ssse3(void) {
    static int known = -1;
    if (known < 0) known = __builtin_cpu_supports("ssse3") ? 1 : 0;
    return known;
}
#endif

void rs_rgb565_to_rgb(const void *source, size_t count, uint8_t *target) {
#if defined(__x86_64__) || defined(__i386__)
    if (has_ssse3()) { rgb565_ssse3(source, count, target); return; }
#endif
    rgb565_scalar(source, count, target);
}

void rs_xrgb8888_to_rgb(const void *source, size_t count, uint8_t *target) {
#if defined(__x86_64__) || defined(__i386__)
    if (has_ssse3()) { xrgb8888_ssse3(source, count, target); return; }
#endif
    xrgb8888_scalar(source, count, target);
}
