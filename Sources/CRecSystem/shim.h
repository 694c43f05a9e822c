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

#endif
