#include "CPocketSphinx.h"

#include <CLoader.h>
#include <stdio.h>
#include <string.h>

// The library's functions, as its headers declare them (pocketsphinx.h, sphinxbase/cmd_ln.h,
// sphinxbase/err.h), with the opaque types above. int32 is int, uint8 is unsigned char.
static struct {
    cps_config *(*cmd_ln_init)(cps_config *, const void *, int, ...);
    int (*cmd_ln_free_r)(cps_config *);
    long (*cmd_ln_int_r)(cps_config *, const char *);
    void (*err_set_logfp)(FILE *);
    const void *(*ps_args)(void);
    cps_decoder *(*ps_init)(cps_config *);
    int (*ps_free)(cps_decoder *);
    cps_config *(*ps_get_config)(cps_decoder *);
    int (*ps_start_utt)(cps_decoder *);
    int (*ps_process_raw)(cps_decoder *, const int16_t *, size_t, int, int);
    int (*ps_end_utt)(cps_decoder *);
    unsigned char (*ps_get_in_speech)(cps_decoder *);
    cps_segment *(*ps_seg_iter)(cps_decoder *);
    cps_segment *(*ps_seg_next)(cps_segment *);
    const char *(*ps_seg_word)(cps_segment *);
    void (*ps_seg_frames)(cps_segment *, int *, int *);
} api;

static cloader loader = CLOADER_INIT;

#define SYMBOL(name) {#name, (void **)&api.name}

int cps_load(const char *path, char *why, size_t size) {
    static const cloader_symbol symbols[] = {
        SYMBOL(cmd_ln_init),
        SYMBOL(cmd_ln_free_r),
        SYMBOL(cmd_ln_int_r),
        SYMBOL(err_set_logfp),
        SYMBOL(ps_args),
        SYMBOL(ps_init),
        SYMBOL(ps_free),
        SYMBOL(ps_get_config),
        SYMBOL(ps_start_utt),
        SYMBOL(ps_process_raw),
        SYMBOL(ps_end_utt),
        SYMBOL(ps_get_in_speech),
        SYMBOL(ps_seg_iter),
        SYMBOL(ps_seg_next),
        SYMBOL(ps_seg_word),
        SYMBOL(ps_seg_frames),
    };
    return cloader_load(&loader, path ? path : "libpocketsphinx.so.3", symbols, sizeof symbols / sizeof *symbols, why, size);
}

void cps_silence(void) { api.err_set_logfp(NULL); }

cps_config *cps_config_new(const char *hmm, const char *lm, const char *dict) {
    // 1 is sphinxbase's TRUE: unknown arguments are refused. cmd_ln_init copies its strings.
    return api.cmd_ln_init(NULL, api.ps_args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict, (char *)NULL);
}

int cps_config_free(cps_config *config) { return api.cmd_ln_free_r(config); }
long cps_config_int(cps_config *config, const char *name) { return api.cmd_ln_int_r(config, name); }
cps_decoder *cps_init(cps_config *config) { return api.ps_init(config); }
int cps_free(cps_decoder *decoder) { return api.ps_free(decoder); }
cps_config *cps_get_config(cps_decoder *decoder) { return api.ps_get_config(decoder); }
int cps_start_utt(cps_decoder *decoder) { return api.ps_start_utt(decoder); }

int cps_process_raw(cps_decoder *decoder, const int16_t *data, size_t samples, int no_search, int full_utt) {
    return api.ps_process_raw(decoder, data, samples, no_search, full_utt);
}

int cps_end_utt(cps_decoder *decoder) { return api.ps_end_utt(decoder); }
int cps_get_in_speech(cps_decoder *decoder) { return api.ps_get_in_speech(decoder); }
cps_segment *cps_seg_iter(cps_decoder *decoder) { return api.ps_seg_iter(decoder); }
cps_segment *cps_seg_next(cps_segment *segment) { return api.ps_seg_next(segment); }
const char *cps_seg_word(cps_segment *segment) { return api.ps_seg_word(segment); }
void cps_seg_frames(cps_segment *segment, int *first, int *last) { api.ps_seg_frames(segment, first, last); }
