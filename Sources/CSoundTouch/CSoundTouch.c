#include "CSoundTouch.h"

#include <CLoader.h>
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

static cloader loader = CLOADER_INIT;

#define SYMBOL(name) {#name, (void **)&api.name}

int cst_load(const char *path, char *why, size_t size) {
    static const cloader_symbol symbols[] = {
        SYMBOL(soundtouch_createInstance),
        SYMBOL(soundtouch_destroyInstance),
        SYMBOL(soundtouch_getVersionString),
        SYMBOL(soundtouch_setTempo),
        SYMBOL(soundtouch_setChannels),
        SYMBOL(soundtouch_setSampleRate),
        SYMBOL(soundtouch_putSamples),
        SYMBOL(soundtouch_numSamples),
        SYMBOL(soundtouch_numUnprocessedSamples),
        SYMBOL(soundtouch_receiveSamples),
        SYMBOL(soundtouch_clear),
    };
    return cloader_load(&loader, path ? path : "libSoundTouchDll.so.1", symbols, sizeof symbols / sizeof *symbols, why, size);
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
