/* The floor under handing a state's bytes from the emulator process to its client: one process
 * (on CPU 0) copies BYTES from its own memory into shared memory, a second (on CPU 1) copies them
 * out into its own, turn about, as the emulator and Python do for `save_state`. Whatever the
 * protocol, those two copies cross between the CPUs' caches.
 * usage: cross_core_copy BYTES ROUNDS  → prints "write_us <value> read_us <value>" */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double microseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e6 + (double)now.tv_nsec / 1e3;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);  /* best effort: one CPU only still measures the copies */
}

/* `rounds` copies of `from` into `to`, each on this side's turn (`mine`), handing the turn over
 * after each; the microseconds spent copying. */
static double take_turns(char *to, char *from, size_t bytes, long rounds, _Atomic int *turn, int mine) {
    double total = 0;
    for (long i = 0; i < rounds; i++) {
        while (atomic_load(turn) != mine) {}
        double start = microseconds();
        memcpy(to, from, bytes);
        total += microseconds() - start;
        if (!mine) from[i % bytes] ^= 1;  /* the writer's state differs each time */
        atomic_store(turn, !mine);
    }
    return total;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: cross_core_copy BYTES ROUNDS\n"); return 2; }
    size_t bytes = (size_t)atol(argv[1]);
    long rounds = atol(argv[2]);
    if (bytes == 0 || rounds <= 0) { fprintf(stderr, "cross_core_copy: BYTES and ROUNDS must be positive\n"); return 2; }
    /* The shared buffer, then the turn flag and the reader's total on a page of their own. */
    char *shared = mmap(NULL, bytes + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) { perror("mmap"); return 1; }
    _Atomic int *turn = (_Atomic int *)(shared + bytes);
    double *read_total = (double *)(shared + bytes + 64);
    memset(shared, 1, bytes);
    atomic_store(turn, 0);
    pid_t reader = fork();
    if (reader == 0) {
        pin(1);
        char *own = malloc(bytes);
        memset(own, 2, bytes);
        *read_total = take_turns(own, shared, bytes, rounds, turn, 1);
        _exit(0);
    }
    pin(0);
    char *own = malloc(bytes);
    memset(own, 3, bytes);
    double total = take_turns(shared, own, bytes, rounds, turn, 0);
    waitpid(reader, NULL, 0);
    printf("write_us %.1f read_us %.1f\n", total / (double)rounds, *read_total / (double)rounds);
    return 0;
}
