#ifndef RECNOTES_CSPEEXDSP_H
#define RECNOTES_CSPEEXDSP_H

#include <stdint.h>
#include <stddef.h>

// speexdsp's preprocessor (libspeexdsp1, 1.2), the noise suppressor behind play/export
// --denoise, loaded with dlopen on the first denoised playback or export instead of linked:
// most commands never denoise. Nothing of its headers is needed to build; the controls are
// those of speex/speex_preprocess.h. The names mirror the library's
// (speex_preprocess_run -> csp_run).

typedef struct csp_state csp_state; // SpeexPreprocessState

// Loads the library once per process (later calls return the first result): 0 when every
// function was found; otherwise -1, with the loader's reason in `why`. `path` is the shared
// object to open, NULL for libspeexdsp.so.1 from the system's library path.
int csp_load(const char *path, char *why, size_t size);

// A suppressor for one channel of `frame` samples a run at `rate` Hz: denoising on, at
// `suppress` dB (negative: how far the noise is brought down at most); its automatic gain,
// voice detection (never touched: off by default) and dereverberation off. NULL when refused.
csp_state *csp_new(int frame, int rate, int suppress);
void csp_delete(csp_state *state);
// Denoises one frame of `frame` 16-bit samples in place.
void csp_run(csp_state *state, int16_t *samples);

#endif
