#ifndef SHARED_BATCH_H
#define SHARED_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The batch door's shared memory is written by two processes at once: its words are read and written
 * with C11 atomics (Swift has no atomics on memory it does not own) and waited on with futexes
 * (a syscall, which Swift cannot call: `syscall` is variadic). The futexes are shared ones (no
 * FUTEX_PRIVATE_FLAG): the other side is another process mapping the same memory file. */

/// The word at `word`, read in sequentially consistent order (what the other side wrote before it is visible).
uint32_t rs_shared_load(const uint32_t *word);

/// Writes `value` with release ordering (everything written before it is visible first).
void rs_shared_store(uint32_t *word, uint32_t value);

/// Adds `value` (sequentially consistent); returns the word before the addition.
uint32_t rs_shared_add(uint32_t *word, uint32_t value);

/// Sleeps while the word still holds `expected`, at most `timeout_ns`; returns at once if it does not.
void rs_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns);

/// Wakes every process waiting on the word.
void rs_futex_wake(uint32_t *word);

/// `recv` that also takes a file descriptor passed with the bytes (SCM_RIGHTS), close-on-exec:
/// stored in `*received` (-1 when none came; any beyond the first are closed).
ssize_t rs_recv_with_descriptor(int socket, void *buffer, size_t length, int *received);

#endif
