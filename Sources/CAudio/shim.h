#ifndef RECNOTES_CAUDIO_SHIM_H
#define RECNOTES_CAUDIO_SHIM_H

#include <alsa/asoundlib.h>
#include <sndfile.h>

// ALSA prints its own diagnostics to stderr through a variadic handler, which Swift
// cannot define. recnotes reports every failure itself, as one line, so the library's
// chatter is silenced here.
static void caudio_quiet_error_handler(const char *file, int line, const char *function,
                                       int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void caudio_silence_alsa_errors(void) {
    snd_lib_error_set_handler(caudio_quiet_error_handler);
}

#endif
