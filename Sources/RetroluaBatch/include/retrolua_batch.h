#ifndef RETROLUA_BATCH_H
#define RETROLUA_BATCH_H

#include <stdint.h>

/* The trainer's side of the batch door (python/retrolua/_layout.py has the layout, which
 * Tests/python/test_wire_layouts.py checks retrolua_batch.c's constants and reply header against; Sources/Control/
 * ControlBatchLane.swift is the emulators' side), loaded by python/retrolua/_native.py with ctypes:
 * a batch's per-lane work in one call each instead of numpy and Python per environment, or a whole step of
 * every lane in one (rb_step, python/retrolua/_step.py). `base` is the
 * region's first byte, `stride` a lane's size; `lanes` (n of them) name lanes, row r of every output
 * being lanes[r]'s. Nothing here allocates or keeps state (rb_step's lives in the caller's rb_batch). */

/// The version of this interface (3: rb_step): python/retrolua/_native.py loads only the one it was written for.
int32_t rb_version(void);

/// Writes a step into each of `lanes` (its 4-word header `header` where `foreign[lane]` says another request
/// overwrote it, then its button mask), bumps each lane's request number, then `generation`, and wakes every
/// emulator with one futex call.
void rb_post(uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, const uint16_t *masks,
             const uint32_t *header, uint8_t *foreign);

/// Waits until `need` of `lanes` are answered: first spinning at most `spin_ns` (0: never), then on the futex
/// for at most `timeout_ns`. Writes the answered lanes into `ready` (unless NULL) in the order they were
/// finished and returns how many (>= need), or -1 when `timeout_ns` passed first (the caller looks at the
/// emulators and waits again).
int32_t rb_wait(uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, int32_t need, int64_t spin_ns,
                int64_t timeout_ns, int64_t *ready);

/// Reads the replies of `lanes`: rewards, terminations, truncations (`steps[lane]` counts the lane's steps
/// since its reset; `max_steps` reached without a termination truncates), frame and lag counters (n x 2),
/// screen sizes (height, width: n x 2) and info lengths. Returns -1, or the first row whose step failed.
int32_t rb_collect(const uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, double *rewards,
                   uint8_t *terminated, uint8_t *truncated, int64_t *steps, int64_t max_steps, int64_t *counters,
                   int64_t *sizes, int64_t *lengths);

/// The replies' `info()` objects as columns: each must be a flat JSON object with exactly `nkeys` keys, the
/// names in `keys` (NUL after each) in that order, each value a number or a boolean. Fills nkeys x n
/// `ints`, `reals` and `kinds` (a key's values side by side; kinds: 0 boolean in ints, 1 integer in ints,
/// 2 real in reals) and `range` (each key's highest kind, then each one's lowest). Returns -1, or the first
/// row that is not such an object (the caller parses it another way).
int32_t rb_infos(const uint8_t *base, int64_t stride, const int64_t *lanes, int32_t n, const char *keys,
                 int32_t nkeys, int64_t *ints, double *reals, uint8_t *kinds, uint8_t *range);

/// One observation kind's copy out of every stepped lane (rows of `row_bytes`, `pitch` apart, from `offset` in
/// the lane) into `out`, the lanes' rows one after another.
typedef struct {
    uint8_t *out;
    int64_t offset, pitch, rows, row_bytes;
} rb_copy;

/// A whole batch step of lanes 0..n-1 (`rb_step`): python/retrolua/_lanes.py fills one once and changes per
/// step only what a step changes (the actions, the outputs' addresses).
typedef struct {
    uint8_t *base;
    int64_t stride;
    int32_t n;
    /// 0: `actions` are n button masks (u16); 1: n indices (i64) into `table` (`table_size` masks); 2: n rows
    /// of `table_size` bytes, a nonzero byte pressing its column's button (`table` holds each column's bit).
    int32_t action_kind;
    const void *actions;
    const uint16_t *table;
    int64_t table_size;
    const uint32_t *header;
    uint8_t *foreign;
    /// Spinning before the futex (0: never); when on, `mean_ns` follows the batches' mean wait and bounds it.
    int32_t spin;
    double mean_ns;
    int64_t spin_ns, started_ns; /* this step's spin and start (kept across a timeout) */
    int64_t timeout_ns;
    int64_t *steps;
    int64_t max_steps;
    double *rewards;
    uint8_t *terminated, *truncated;
    int64_t *frames, *lags, *lengths, *sizes; /* sizes: each screen's height and width (n x 2) */
    /// The screen size every lane's reply must have for the copies (0: not checked).
    int64_t expected_height, expected_width;
    /// The info() keys to read (rb_infos' arguments); `nkeys` < 0: none read.
    const char *keys;
    int32_t nkeys;
    int64_t *ints;
    double *reals;
    uint8_t *kinds, *range;
    int32_t copies;
    rb_copy copy[2];
    /// Out: the first row whose action was refused (nothing posted), the first row whose step failed, whether
    /// the infos were read and whether every screen is the expected size (only then are the copies made).
    int32_t refused, failed, infos_read, sized;
    /// In and out: whether the step is posted (a call after a timeout, or after one that only posts, only waits
    /// and reads). In: 1 to only post (the call returns 1 once posted).
    int32_t posted, post_only;
} rb_batch;

/// A whole batch step: the actions checked and turned into masks (any refused: `refused`, returns -2, nothing
/// posted), posted (with `post_only`: returns 1), waited for (spinning as `spin` says; -1 when `timeout_ns`
/// passed: the caller looks at the emulators and calls again), then the replies, infos and observations
/// read into the outputs (0).
int32_t rb_step(rb_batch *batch);

#endif
