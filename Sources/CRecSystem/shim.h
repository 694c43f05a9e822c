#ifndef RECNOTES_CSYSTEM_SHIM_H
#define RECNOTES_CSYSTEM_SHIM_H

#include <stddef.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

// sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): starts writing a file's dirty pages
// to the disk without waiting for them. Through syscall(2), which Swift cannot call
// (variadic), and because glibc declares sync_file_range only under _GNU_SOURCE.
static inline int csystem_start_writeback(int fd) {
    return (int)syscall(SYS_sync_file_range, fd, (long)0, (long)0, 2u /* SYNC_FILE_RANGE_WRITE */);
}

// copy_file_range(fd_in, &offset, fd_out, NULL, length, 0): the kernel copies a file's bytes
// from `*offset` to where `fd_out` is written, without a user buffer. Through syscall(2) for
// the same reason as above (glibc declares copy_file_range only under _GNU_SOURCE).
static inline long csystem_copy_file_range(int fd_in, long long *offset, int fd_out, size_t length) {
    return syscall(SYS_copy_file_range, fd_in, offset, fd_out, (void *)0, length, 0u);
}

// glibc's memmem (a two-way search, far faster than a byte loop on megabytes), which
// Swift's Glibc module does not show: glibc declares it only under _GNU_SOURCE.
extern void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

static inline const void *csystem_memmem(const void *haystack, size_t haystack_length,
                                         const void *needle, size_t needle_length) {
    return memmem(haystack, haystack_length, needle, needle_length);
}

// Takes the lowest-numbered CPU out of the calling thread's affinity, when it has more than
// one; returns how many it has then (-1 on an error). The raw system calls, for the same
// reason as above: glibc declares sched_setaffinity and the CPU_* macros only under
// _GNU_SOURCE. A mask of 1024 CPUs, the kernel's own default.
static inline int csystem_leave_one_cpu(void) {
    unsigned long mask[16] = {0};
    const int bits = (int)(8 * sizeof mask[0]);
    if (syscall(SYS_sched_getaffinity, 0, sizeof mask, mask) <= 0) return -1;
    int count = 0, first = -1;
    for (int cpu = 0; cpu < 16 * bits; cpu++) {
        if ((mask[cpu / bits] >> (cpu % bits)) & 1UL) {
            if (first < 0) first = cpu;
            count++;
        }
    }
    if (count < 2) return count;
    mask[first / bits] &= ~(1UL << (first % bits));
    if (syscall(SYS_sched_setaffinity, 0, sizeof mask, mask) != 0) return -1;
    return count - 1;
}

#endif
