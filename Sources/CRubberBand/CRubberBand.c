#include "CRubberBand.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The library's functions, as rubberband-c.h declares them, with the opaque state above.
static struct {
    crb_state *(*rubberband_new)(unsigned int, unsigned int, int, double, double);
    void (*rubberband_delete)(crb_state *);
    void (*rubberband_reset)(crb_state *);
    int (*rubberband_get_engine_version)(crb_state *);
    void (*rubberband_set_time_ratio)(crb_state *, double);
    unsigned int (*rubberband_get_preferred_start_pad)(const crb_state *);
    unsigned int (*rubberband_get_start_delay)(const crb_state *);
    unsigned int (*rubberband_get_samples_required)(const crb_state *);
    void (*rubberband_set_max_process_size)(crb_state *, unsigned int);
    void (*rubberband_process)(crb_state *, const float *const *, unsigned int, int);
    int (*rubberband_available)(const crb_state *);
    unsigned int (*rubberband_retrieve)(const crb_state *, float *const *, unsigned int);
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
    const char *library = path ? path : "librubberband.so.2";
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "%s", why ? why : library);
        return -1;
    }
    RESOLVE(handle, rubberband_new);
    RESOLVE(handle, rubberband_delete);
    RESOLVE(handle, rubberband_reset);
    RESOLVE(handle, rubberband_get_engine_version);
    RESOLVE(handle, rubberband_set_time_ratio);
    // get_preferred_start_pad and get_start_delay came with Rubber Band 3.0 (C API 2.7):
    // an older library is refused here, by name, rather than stretching with a lag.
    RESOLVE(handle, rubberband_get_preferred_start_pad);
    RESOLVE(handle, rubberband_get_start_delay);
    RESOLVE(handle, rubberband_get_samples_required);
    RESOLVE(handle, rubberband_set_max_process_size);
    RESOLVE(handle, rubberband_process);
    RESOLVE(handle, rubberband_available);
    RESOLVE(handle, rubberband_retrieve);
    return 0;
}

int crb_load(const char *path, char *why, size_t size) {
    pthread_mutex_lock(&load_lock);
    if (load_result == 1) load_result = load_locked(path);
    int result = load_result;
    pthread_mutex_unlock(&load_lock);
    if (result != 0 && why && size > 0) snprintf(why, size, "%s", load_error);
    return result;
}

crb_state *crb_new(unsigned int rate, unsigned int channels, int options, double time_ratio) {
    return api.rubberband_new(rate, channels, options, time_ratio, 1.0); // pitch scale 1: pitch kept
}

void crb_delete(crb_state *state) { api.rubberband_delete(state); }
void crb_reset(crb_state *state) { api.rubberband_reset(state); }
int crb_engine_version(crb_state *state) { return api.rubberband_get_engine_version(state); }
void crb_set_time_ratio(crb_state *state, double ratio) { api.rubberband_set_time_ratio(state, ratio); }
unsigned int crb_preferred_start_pad(crb_state *state) { return api.rubberband_get_preferred_start_pad(state); }
unsigned int crb_start_delay(crb_state *state) { return api.rubberband_get_start_delay(state); }
unsigned int crb_samples_required(crb_state *state) { return api.rubberband_get_samples_required(state); }
void crb_set_max_process_size(crb_state *state, unsigned int samples) {
    api.rubberband_set_max_process_size(state, samples);
}

void crb_process(crb_state *state, const float *const *input, unsigned int samples, int final) {
    api.rubberband_process(state, input, samples, final);
}

int crb_available(crb_state *state) { return api.rubberband_available(state); }
unsigned int crb_retrieve(crb_state *state, float *const *output, unsigned int samples) {
    return api.rubberband_retrieve(state, output, samples);
}
