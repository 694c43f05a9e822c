#ifndef RECNOTES_CLOADER_H
#define RECNOTES_CLOADER_H

#include <pthread.h>
#include <stddef.h>

// Opening a shared library on first use (dlopen) and finding its functions (dlsym), for the
// libraries recnotes loads only when a command needs them (CPocketSphinx, CSoundTouch): one
// attempt per process, remembered, safe from any thread.

// One function to find: its name, and where its address goes.
typedef struct cloader_symbol {
    const char *name;
    void **slot;
} cloader_symbol;

// What one library's loading remembers: whether it was tried, how it went, and why not.
typedef struct cloader {
    pthread_mutex_t lock;
    int result; // 1: not tried yet; 0: loaded; -1: failed
    char error[512];
} cloader;

#define CLOADER_INIT {PTHREAD_MUTEX_INITIALIZER, 1, {0}}

// Opens `library` (RTLD_NOW | RTLD_LOCAL) and fills every symbol's slot, once per `loader`:
// later calls return the first result. 0 when every function was found; otherwise -1, with
// the loader's reason in `why` (when given).
int cloader_load(cloader *loader, const char *library, const cloader_symbol *symbols, size_t count, char *why,
                 size_t size);

#endif
