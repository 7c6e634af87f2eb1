#ifndef RETROLUA_BATCH_H
#define RETROLUA_BATCH_H

#include <stdint.h>

/* The trainer's side of the batch door (python/retrolua/_batch.py has the layout; Sources/Control/
 * ControlBatchLane.swift is the emulators' side), loaded by python/retrolua/_native.py with ctypes:
 * a batch's per-lane work in one call each instead of numpy and Python per environment. `base` is the
 * region's first byte, `stride` a lane's size; `lanes` (n of them) name lanes, row r of every output
 * being lanes[r]'s. Nothing here allocates or keeps state. */

/// The version of this interface: python/retrolua/_native.py loads only the one it was written for.
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

#endif
