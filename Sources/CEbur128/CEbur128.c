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

// The state begins with its channel count (ebur128.h: `int mode; unsigned int channels;`).
struct ceb_header {
    int mode;
    unsigned int channels;
};

static struct {
    void *(*ebur128_init)(unsigned int, unsigned long, int);
    void (*ebur128_destroy)(void **);
    int (*ebur128_add_frames_short)(void *, const short *, size_t);
    int (*ebur128_loudness_global)(void *, double *);
    int (*ebur128_loudness_range)(void *, double *);
    int (*ebur128_true_peak)(void *, unsigned int, double *);
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
        SYMBOL(ebur128_true_peak),
    };
    return cloader_load(&loader, path ? path : "libebur128.so.1", symbols, sizeof symbols / sizeof *symbols, why, size);
}

ceb_state *ceb_new(unsigned int channels, unsigned long rate) {
    return (ceb_state *)api.ebur128_init(channels, rate, MODE_I | MODE_LRA | MODE_TRUE_PEAK | MODE_HISTOGRAM);
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

int ceb_true_peak(ceb_state *state, double *out) {
    unsigned int channels = ((const struct ceb_header *)state)->channels;
    double peak = 0;
    for (unsigned int c = 0; c < channels; c++) {
        double value = 0;
        int result = api.ebur128_true_peak(state, c, &value);
        if (result != 0) return result;
        if (value > peak) peak = value;
    }
    *out = peak;
    return 0;
}
