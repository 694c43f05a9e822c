#include "CQREncode.h"

#include <CLoader.h>
#include <stdlib.h>
#include <string.h>

// The library's types and constants, as qrencode.h (4.1) declares them.
typedef struct {
    int version;
    int width;
    unsigned char *data; // bit 0 of each byte: the module is dark
} QRcode;

enum { QR_MODE_8 = 2 };
enum { QR_ECLEVEL_M = 1 };

static struct {
    QRcode *(*QRcode_encodeString)(const char *, int, int, int, int);
    void (*QRcode_free)(QRcode *);
} api;

static cloader loader = CLOADER_INIT;

#define SYMBOL(name) {#name, (void **)&api.name}

int cqr_load(const char *path, char *why, size_t size) {
    static const cloader_symbol symbols[] = {
        SYMBOL(QRcode_encodeString),
        SYMBOL(QRcode_free),
    };
    return cloader_load(&loader, path ? path : "libqrencode.so.4", symbols, sizeof symbols / sizeof *symbols, why,
                        size);
}

unsigned char *cqr_encode(const char *text, int *width) {
    QRcode *code = api.QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!code) return NULL;
    size_t count = (size_t)code->width * (size_t)code->width;
    unsigned char *modules = malloc(count);
    if (modules) {
        for (size_t i = 0; i < count; i++) modules[i] = code->data[i] & 1;
        *width = code->width;
    }
    api.QRcode_free(code);
    return modules;
}
