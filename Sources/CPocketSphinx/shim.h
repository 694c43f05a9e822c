#ifndef RECNOTES_CPOCKETSPHINX_SHIM_H
#define RECNOTES_CPOCKETSPHINX_SHIM_H

#include <pocketsphinx.h>
#include <sphinxbase/err.h>

// CMU PocketSphinx (the 0.8+5prealpha API Debian ships). Two things Swift cannot do:
// call the variadic cmd_ln_init, and define sphinxbase's variadic log callback.

// sphinxbase logs every step to stderr. recnotes reports failures itself, as one line,
// so the library's own log is turned off (process-wide, before any other call).
static inline void cpocketsphinx_silence(void) {
    err_set_logfp(NULL);
}

// A decoder configuration with the acoustic model, language model and dictionary, the
// rest at PocketSphinx's defaults (what pocketsphinx_continuous uses). cmd_ln_init copies
// its strings. NULL when an argument is refused.
static inline cmd_ln_t *cpocketsphinx_config(const char *hmm, const char *lm, const char *dict) {
    return cmd_ln_init(NULL, ps_args(), TRUE, "-hmm", hmm, "-lm", lm, "-dict", dict, NULL);
}

#endif
