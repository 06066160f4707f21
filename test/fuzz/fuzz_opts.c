/* libFuzzer target: mpirun's command-line parser (launcher/vbt_opts.c), which mpirun calls
 * before anything else and which neither exits nor forks. Input: the arguments after
 * "mpirun", separated by NUL bytes (at most 64). Every parse, good or bad, must leave opts
 * cleanable with nothing leaked (LeakSanitizer), and an accepted one must be consistent. */
#include "vbt_opts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char *argv[MAX_ARGS + 2];
    int argc = 1;
    vbt_opts_t opts;

    if (text == NULL)
        return 0;
    if (size > 0)
        memcpy(text, data, size);
    text[size] = '\0';
    argv[0] = "mpirun";
    for (size_t i = 0; i <= size && argc <= MAX_ARGS;) {
        argv[argc++] = text + i;
        i += strlen(text + i) + 1;
    }
    argv[argc] = NULL;
    if (vbt_opts_parse(argc, argv, &opts) == VBT_OK && !opts.help && !opts.version) {
        int total = 0;
        if (opts.napps < 1)
            abort();
        for (int i = 0; i < opts.napps; i++) {
            if (opts.apps[i].nprocs < 1 || opts.apps[i].argv == NULL ||
                opts.apps[i].argv[0] == NULL)
                abort();
            total += opts.apps[i].nprocs;
        }
        if (total != opts.nprocs || opts.timeout < 0)
            abort();
    }
    vbt_opts_cleanup(&opts);
    free(text);
    return 0;
}
