/* The floor for `recnotes export x -`: libsndfile decoding a file to 16-bit samples and
 * writing them to stdout behind a 44-byte WAV header, with nothing else around it.
 * Built by bench/export.sh: cc -O2 bench/sfdecode.c -lsndfile */
#include <sndfile.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    SF_INFO info;
    memset(&info, 0, sizeof info);
    SNDFILE *f = argc > 1 ? sf_open(argv[1], SFM_READ, &info) : NULL;
    if (!f) { fprintf(stderr, "sfdecode: %s\n", sf_strerror(NULL)); return 1; }
    unsigned char header[44] = {0};
    if (write(1, header, sizeof header) != sizeof header) return 1;
    static short buffer[16384 * 8];
    sf_count_t n;
    while ((n = sf_readf_short(f, buffer, 16384)) > 0) {
        size_t bytes = (size_t)n * info.channels * sizeof(short);
        if (write(1, buffer, bytes) != (ssize_t)bytes) return 1;
    }
    sf_close(f);
    return 0;
}
