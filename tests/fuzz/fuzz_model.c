/* fuzz_model.c: libFuzzer target for the model file reader: each input is a model file's
 * text, read with pmf_read (and freed) as predict --model would. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model_file.h"

static char path[64];

static void cleanup(void) { unlink(path); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(path, sizeof(path), "/dev/shm/phasor-fuzz-model-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(path, sizeof(path), "/tmp/phasor-fuzz-model-XXXXXX");
        if ((fd = mkstemp(path)) < 0)
            abort();
    }
    close(fd);
    atexit(cleanup); /* libFuzzer ends by exit(), a finding included */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    pmf_t m;
    plog_error_t err;
    if (pmf_read(path, &m, &err) == PLOG_OK)
        pmf_free(&m);
    return 0;
}
