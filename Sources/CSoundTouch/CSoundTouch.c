#include "CSoundTouch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The library's functions, as SoundTouchDLL.h declares them (HANDLE is void *).
static struct {
    void *(*soundtouch_createInstance)(void);
    void (*soundtouch_destroyInstance)(void *);
    const char *(*soundtouch_getVersionString)(void);
    void (*soundtouch_setTempo)(void *, float);
    int (*soundtouch_setChannels)(void *, unsigned int);
    int (*soundtouch_setSampleRate)(void *, unsigned int);
    int (*soundtouch_putSamples)(void *, const float *, unsigned int);
    unsigned int (*soundtouch_numSamples)(void *);
    unsigned int (*soundtouch_numUnprocessedSamples)(void *);
    unsigned int (*soundtouch_receiveSamples)(void *, float *, unsigned int);
    void (*soundtouch_clear)(void *);
} api;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int load_result = 1; // 1: not tried yet
static char load_error[512];

#define RESOLVE(handle, name)                                                                  \
    do {                                                                                       \
        *(void **)(&api.name) = dlsym(handle, #name);                                          \
        if (!api.name) {                                                                       \
            snprintf(load_error, sizeof load_error, "%s has no function %s", library, #name);  \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

static int load_locked(const char *path) {
    const char *library = path ? path : "libSoundTouchDll.so.1";
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "%s", why ? why : library);
        return -1;
    }
    RESOLVE(handle, soundtouch_createInstance);
    RESOLVE(handle, soundtouch_destroyInstance);
    RESOLVE(handle, soundtouch_getVersionString);
    RESOLVE(handle, soundtouch_setTempo);
    RESOLVE(handle, soundtouch_setChannels);
    RESOLVE(handle, soundtouch_setSampleRate);
    RESOLVE(handle, soundtouch_putSamples);
    RESOLVE(handle, soundtouch_numSamples);
    RESOLVE(handle, soundtouch_numUnprocessedSamples);
    RESOLVE(handle, soundtouch_receiveSamples);
    RESOLVE(handle, soundtouch_clear);
    return 0;
}

int cst_load(const char *path, char *why, size_t size) {
    pthread_mutex_lock(&load_lock);
    if (load_result == 1) load_result = load_locked(path);
    int result = load_result;
    pthread_mutex_unlock(&load_lock);
    if (result != 0 && why && size > 0) snprintf(why, size, "%s", load_error);
    return result;
}

cst_state *cst_new(unsigned int rate, unsigned int channels) {
    void *handle = api.soundtouch_createInstance();
    if (!handle) return NULL;
    // The DLL catches the library's exceptions (a channel count it cannot take) and says 0.
    if (!api.soundtouch_setChannels(handle, channels) || !api.soundtouch_setSampleRate(handle, rate)) {
        api.soundtouch_destroyInstance(handle);
        return NULL;
    }
    return (cst_state *)handle;
}

void cst_delete(cst_state *state) { api.soundtouch_destroyInstance(state); }
const char *cst_version(void) { return api.soundtouch_getVersionString(); }
void cst_set_tempo(cst_state *state, float tempo) { api.soundtouch_setTempo(state, tempo); }
void cst_put(cst_state *state, const float *samples, unsigned int frames) {
    api.soundtouch_putSamples(state, samples, frames);
}
unsigned int cst_available(cst_state *state) { return api.soundtouch_numSamples(state); }
unsigned int cst_unprocessed(cst_state *state) { return api.soundtouch_numUnprocessedSamples(state); }
unsigned int cst_receive(cst_state *state, float *output, unsigned int frames) {
    return api.soundtouch_receiveSamples(state, output, frames);
}
void cst_clear(cst_state *state) { api.soundtouch_clear(state); }
