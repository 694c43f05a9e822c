#include "CLoader.h"

#include <dlfcn.h>
#include <stdio.h>

static int load_locked(cloader *loader, const char *library, const cloader_symbol *symbols, size_t count) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(loader->error, sizeof loader->error, "%s", why ? why : library);
        return -1;
    }
    // dlsym on the library's handle searches its dependencies too (sphinxbase's functions come
    // through libpocketsphinx, which links it).
    for (size_t i = 0; i < count; i++) {
        *symbols[i].slot = dlsym(handle, symbols[i].name);
        if (!*symbols[i].slot) {
            snprintf(loader->error, sizeof loader->error, "%s has no function %s", library, symbols[i].name);
            return -1;
        }
    }
    return 0;
}

int cloader_load(cloader *loader, const char *library, const cloader_symbol *symbols, size_t count, char *why,
                 size_t size) {
    pthread_mutex_lock(&loader->lock);
    if (loader->result == 1) loader->result = load_locked(loader, library, symbols, count);
    int result = loader->result;
    pthread_mutex_unlock(&loader->lock);
    if (result != 0 && why && size > 0) snprintf(why, size, "%s", loader->error);
    return result;
}
