#ifndef RECNOTES_CRUBBERBAND_H
#define RECNOTES_CRUBBERBAND_H

#include <stddef.h>

// Rubber Band (librubberband2, the 3.x library Debian ships), the time stretcher behind
// play/export --speed, loaded with dlopen on the first stretch instead of linked: most
// commands never change the speed, and linking it would map it and libstdc++ at the start
// of every one. Nothing of its headers is needed to build recnotes.
// The names mirror the library's C API (rubberband-c.h: rubberband_new -> crb_new).

typedef struct crb_state crb_state; // struct RubberBandState_

// The options recnotes uses, with the values of rubberband-c.h's enum RubberBandOption.
enum {
    CRB_PROCESS_REAL_TIME = 0x00000001,
    CRB_TRANSIENTS_MIXED = 0x00000100,
    CRB_DETECTOR_SOFT = 0x00000800,
    CRB_THREADING_NEVER = 0x00010000,
    CRB_WINDOW_SHORT = 0x00100000,
    CRB_FORMANT_PRESERVED = 0x01000000,
    CRB_PITCH_HIGH_CONSISTENCY = 0x04000000,
    CRB_CHANNELS_TOGETHER = 0x10000000,
    CRB_ENGINE_FINER = 0x20000000,
};

// Loads the library once per process (later calls return the first result): 0 when every
// function was found; otherwise -1, with the loader's reason in `why`. `path` is the shared
// object to open, NULL for librubberband.so.2 from the system's library path.
int crb_load(const char *path, char *why, size_t size);

crb_state *crb_new(unsigned int rate, unsigned int channels, int options, double time_ratio);
void crb_delete(crb_state *state);
// Forgets all input (a seek): the next process starts afresh.
void crb_reset(crb_state *state);
int crb_engine_version(crb_state *state);
void crb_set_time_ratio(crb_state *state, double ratio);
unsigned int crb_preferred_start_pad(crb_state *state);
unsigned int crb_start_delay(crb_state *state);
unsigned int crb_samples_required(crb_state *state);
void crb_set_max_process_size(crb_state *state, unsigned int samples);
// `input`: one pointer per channel (de-interleaved floats).
void crb_process(crb_state *state, const float *const *input, unsigned int samples, int final);
// Frames ready to retrieve; -1 once the final input has all come out.
int crb_available(crb_state *state);
unsigned int crb_retrieve(crb_state *state, float *const *output, unsigned int samples);

#endif
