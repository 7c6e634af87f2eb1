#define _GNU_SOURCE
#include "shared_batch.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint32_t rs_shared_load(const uint32_t *word) {
    /* Sequentially consistent: a lane reads `wake at` after adding to `completed`, and neither may pass
     * the other (the trainer stores the one, then reads the other in the kernel's futex wait). */
    return atomic_load_explicit((const _Atomic uint32_t *)word, memory_order_seq_cst);
}

void rs_shared_store(uint32_t *word, uint32_t value) {
    atomic_store_explicit((_Atomic uint32_t *)word, value, memory_order_release);
}

uint32_t rs_shared_add(uint32_t *word, uint32_t value) {
    return atomic_fetch_add_explicit((_Atomic uint32_t *)word, value, memory_order_seq_cst);
}

void rs_futex_wait(uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    if (timeout_ns < 0) timeout_ns = 0;
    struct timespec timeout = {(time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000)};
    syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
}

void rs_futex_wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0); }

ssize_t rs_recv_with_descriptor(int socket, void *buffer, size_t length, int *received) {
    *received = -1;
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int) * 4)];
    } control;
    struct iovec vector = {buffer, length};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    ssize_t count = recvmsg(socket, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (count < 0) return count;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t descriptors = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < descriptors; index++) {
            int descriptor;
            memcpy(&descriptor, CMSG_DATA(header) + index * sizeof(int), sizeof descriptor);
            /* One descriptor per message is used; more (a hostile peer) are closed, never leaked. */
            if (*received < 0) *received = descriptor;
            else close(descriptor);
        }
    }
    return count;
}
