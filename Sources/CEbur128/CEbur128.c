#include "CEbur128.h"

#include <CLoader.h>

// The library's mode bits and functions, as ebur128.h (1.2) declares them.
enum {
    MODE_M = 1 << 0,
    MODE_S = (1 << 1) | MODE_M,
    MODE_I = (1 << 2) | MODE_M,
    MODE_LRA = (1 << 3) | MODE_S,
    MODE_SAMPLE_PEAK = (1 << 4) | MODE_M,
    MODE_TRUE_PEAK = (1 << 5) | MODE_M | MODE_SAMPLE_PEAK,
    MODE_HISTOGRAM = 1 << 6,
};

static struct {
    void *(*ebur128_init)(unsigned int, unsigned long, int);
    void (*ebur128_destroy)(void **);
    int (*ebur128_add_frames_short)(void *, const short *, size_t);
    int (*ebur128_loudness_global)(void *, double *);
    int (*ebur128_loudness_range)(void *, double *);
} api;

static cloader loader = CLOADER_INIT;

#define SYMBOL(name) {#name, (void **)&api.name}

int ceb_load(const char *path, char *why, size_t size) {
    static const cloader_symbol symbols[] = {
        SYMBOL(ebur128_init),
        SYMBOL(ebur128_destroy),
        SYMBOL(ebur128_add_frames_short),
        SYMBOL(ebur128_loudness_global),
        SYMBOL(ebur128_loudness_range),
    };
    return cloader_load(&loader, path ? path : "libebur128.so.1", symbols, sizeof symbols / sizeof *symbols, why, size);
}

ceb_state *ceb_new(unsigned int channels, unsigned long rate) {
    return (ceb_state *)api.ebur128_init(channels, rate, MODE_I | MODE_LRA | MODE_HISTOGRAM);
}

void ceb_delete(ceb_state *state) {
    void *handle = state;
    api.ebur128_destroy(&handle);
}

int ceb_add_short(ceb_state *state, const short *samples, size_t frames) {
    return api.ebur128_add_frames_short(state, samples, frames);
}

int ceb_integrated(ceb_state *state, double *out) { return api.ebur128_loudness_global(state, out); }
int ceb_range(ceb_state *state, double *out) { return api.ebur128_loudness_range(state, out); }
