#ifndef RECNOTES_CSOUNDTOUCH_H
#define RECNOTES_CSOUNDTOUCH_H

#include <stddef.h>

// SoundTouch (libsoundtouch1, 2.x), the time stretcher behind play/export --speed, through
// the C API of its libSoundTouchDll.so.1 (SoundTouchDLL.h), loaded with dlopen on the first
// stretch instead of linked: most commands never change the speed, and linking it would map
// it and libstdc++ at the start of every one. Nothing of its headers is needed to build.
// The names mirror the library's (soundtouch_putSamples -> cst_put). Debian builds
// it with float samples (soundtouch_config.h: SOUNDTOUCH_FLOAT_SAMPLES), interleaved. Its
// int16 variants are not used: Debian's soundtouch_receiveSamples_i16 gives the float
// samples unscaled (a full-scale tone comes out as -1 to 1), so 16-bit audio is scaled here.

typedef struct cst_state cst_state; // the DLL's HANDLE

// Loads the library once per process (later calls return the first result): 0 when every
// function was found; otherwise -1, with the loader's reason in `why`. `path` is the shared
// object to open, NULL for libSoundTouchDll.so.1 from the system's library path.
int cst_load(const char *path, char *why, size_t size);

// A stretcher for `channels` interleaved channels at `rate` Hz; NULL when refused.
cst_state *cst_new(unsigned int rate, unsigned int channels);
void cst_delete(cst_state *state);
const char *cst_version(void);
// The tempo: 1.5 plays 1.5 times as fast, the pitch kept. Takes effect from the next input.
void cst_set_tempo(cst_state *state, float tempo);
// Feeds `frames` interleaved frames.
void cst_put(cst_state *state, const float *samples, unsigned int frames);
// Frames ready to receive.
unsigned int cst_available(cst_state *state);
// Frames fed but not yet stretched: they will be at the tempo set when they are.
unsigned int cst_unprocessed(cst_state *state);
// Moves up to `frames` ready frames to `output`; returns how many.
unsigned int cst_receive(cst_state *state, float *output, unsigned int frames);
// Forgets all input and output (a seek): the next frame fed starts afresh.
void cst_clear(cst_state *state);

#endif
