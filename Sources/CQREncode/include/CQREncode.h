#ifndef RECNOTES_CQRENCODE_H
#define RECNOTES_CQRENCODE_H

#include <stddef.h>

// libqrencode (libqrencode4), the QR code encoder of qrencode(1), behind the code `serve`
// prints under its URL at a terminal, for a phone's camera. Loaded with dlopen the first time,
// like libebur128: without it `serve` prints the URL alone, and nothing of its headers is
// needed to build.

// Loads the library once per process: 0 when every function was found; otherwise -1, with the
// loader's reason in `why`. `path` is the shared object, NULL for libqrencode.so.4.
int cqr_load(const char *path, char *why, size_t size);

// Encodes `text` as 8-bit data at error correction level M, in the smallest version that
// holds it: the modules, `*width` by `*width`, one byte each (1 dark, 0 light), row by row,
// in a buffer the caller frees with free(3). NULL when it cannot (too long, out of memory).
unsigned char *cqr_encode(const char *text, int *width);

#endif
