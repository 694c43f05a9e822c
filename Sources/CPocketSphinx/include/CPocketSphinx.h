#ifndef RECNOTES_CPOCKETSPHINX_H
#define RECNOTES_CPOCKETSPHINX_H

#include <stddef.h>
#include <stdint.h>

// CMU PocketSphinx (the 0.8+5prealpha API Debian ships), loaded with dlopen on the first
// transcription instead of linked: the library and what it brings (sphinxbase, libpulse,
// X11, dbus, lapack, gfortran: about 30 shared objects) would otherwise be mapped at the
// start of every command. Nothing of PocketSphinx's headers is needed to build recnotes.
// The names mirror the library's (ps_init -> cps_init); the types are opaque here.

typedef struct cps_decoder cps_decoder; // ps_decoder_t
typedef struct cps_config cps_config;   // cmd_ln_t
typedef struct cps_segment cps_segment; // ps_seg_t

// Loads the library once per process (later calls return the first result): 0 when every
// function was found; otherwise -1, with the loader's reason in `why`. `path` is the
// shared object to open, NULL for libpocketsphinx.so.3 from the system's library path.
int cps_load(const char *path, char *why, size_t size);

// sphinxbase logs every step to stderr. recnotes reports failures itself, as one line, so
// the library's own log is turned off (process-wide, before any other call).
void cps_silence(void);

// A decoder configuration with the acoustic model, language model and dictionary, the
// rest at PocketSphinx's defaults (what pocketsphinx_continuous uses). NULL when refused.
cps_config *cps_config_new(const char *hmm, const char *lm, const char *dict);
int cps_config_free(cps_config *config);
long cps_config_int(cps_config *config, const char *name);

cps_decoder *cps_init(cps_config *config);
int cps_free(cps_decoder *decoder);
cps_config *cps_get_config(cps_decoder *decoder);
int cps_start_utt(cps_decoder *decoder);
int cps_process_raw(cps_decoder *decoder, const int16_t *data, size_t samples, int no_search, int full_utt);
int cps_end_utt(cps_decoder *decoder);
int cps_get_in_speech(cps_decoder *decoder);

cps_segment *cps_seg_iter(cps_decoder *decoder);
cps_segment *cps_seg_next(cps_segment *segment);
const char *cps_seg_word(cps_segment *segment);
void cps_seg_frames(cps_segment *segment, int *first, int *last);

#endif
