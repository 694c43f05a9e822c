#ifndef RECNOTES_CEBUR128_H
#define RECNOTES_CEBUR128_H

#include <stddef.h>

// libebur128 (libebur128-1), the EBU R128 loudness meter that rsgain and mpd use, behind the
// analysis saved with every recording (integrated loudness, loudness range).
// Loaded with dlopen on the first measurement, like SoundTouch and PocketSphinx: without it
// a recording is still saved and analysed, only without its loudness (fsck notes it), and
// nothing of its headers is needed to build. The names mirror the library's
// (ebur128_add_frames_short -> ceb_add_short).

typedef struct ceb_state ceb_state; // the library's ebur128_state

// Loads the library once per process (later calls return the first result): 0 when every
// function was found; otherwise -1, with the loader's reason in `why`. `path` is the shared
// object to open, NULL for libebur128.so.1 from the system's library path.
int ceb_load(const char *path, char *why, size_t size);

// A meter of integrated loudness and loudness range for `channels` interleaved
// channels at `rate` Hz, in the library's histogram mode (constant memory, however long the
// recording); NULL when refused.
ceb_state *ceb_new(unsigned int channels, unsigned long rate);
void ceb_delete(ceb_state *state);
// Feeds `frames` interleaved 16-bit frames; 0 on success.
int ceb_add_short(ceb_state *state, const short *samples, size_t frames);
// The figures so far: LUFS (-HUGE_VAL when every block is below the absolute gate) and LU.
// 0 on success. (The true peak is recnotes' own: the library's oversampled every sample.)
int ceb_integrated(ceb_state *state, double *out);
int ceb_range(ceb_state *state, double *out);

#endif
