#include "CSpeexDSP.h"

#include <CLoader.h>

// The controls of speex/speex_preprocess.h.
enum {
    SET_DENOISE = 0,
    SET_AGC = 2,
    SET_DEREVERB = 8,
    SET_NOISE_SUPPRESS = 18,
};

// The library's functions, as speex_preprocess.h declares them (spx_int16_t is int16_t).
static struct {
    void *(*speex_preprocess_state_init)(int, int);
    void (*speex_preprocess_state_destroy)(void *);
    int (*speex_preprocess_run)(void *, int16_t *);
    int (*speex_preprocess_ctl)(void *, int, void *);
} api;

static cloader loader = CLOADER_INIT;

#define SYMBOL(name) {#name, (void **)&api.name}

int csp_load(const char *path, char *why, size_t size) {
    static const cloader_symbol symbols[] = {
        SYMBOL(speex_preprocess_state_init),
        SYMBOL(speex_preprocess_state_destroy),
        SYMBOL(speex_preprocess_run),
        SYMBOL(speex_preprocess_ctl),
    };
    return cloader_load(&loader, path ? path : "libspeexdsp.so.1", symbols, sizeof symbols / sizeof *symbols, why, size);
}

csp_state *csp_new(int frame, int rate, int suppress) {
    void *state = api.speex_preprocess_state_init(frame, rate);
    if (!state) return NULL;
    int on = 1, off = 0;
    // Loudness is --level's job (AGC off). The VAD is off by default and left so: its control
    // prints "The VAD has been replaced by a hack" on stderr whatever it is set to.
    if (api.speex_preprocess_ctl(state, SET_DENOISE, &on) != 0 || api.speex_preprocess_ctl(state, SET_AGC, &off) != 0 ||
        api.speex_preprocess_ctl(state, SET_DEREVERB, &off) != 0 ||
        api.speex_preprocess_ctl(state, SET_NOISE_SUPPRESS, &suppress) != 0) {
        api.speex_preprocess_state_destroy(state);
        return NULL;
    }
    return (csp_state *)state;
}

void csp_delete(csp_state *state) { api.speex_preprocess_state_destroy(state); }
void csp_run(csp_state *state, int16_t *samples) { api.speex_preprocess_run(state, samples); }
