/* probeseries_show.c: every network probe of a run, through libplogread's
 * plog_probeseries_load (its installed API only), one line per probe:
 *   seq trigger ranks start_ns end_ns entries elapsed_s nsizes
 * then "run end_ns" (the latest aligned event end); for run_probe_periodic_tests.sh.
 * Also says whether plog_probeset_load still gives the probe at MPI_Init alone.
 * Usage: probeseries_show LOGDIR.  Exit 1 with the reader's message on an error. */
#include <inttypes.h>
#include <stdio.h>

#include "plog_probeset.h"
#include "plog_reader.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: probeseries_show LOGDIR\n");
        return 2;
    }
    plog_run_t *run;
    plog_error_t err;
    if (plog_run_open(argv[1], &run, &err) != PLOG_OK) {
        fprintf(stderr, "probeseries_show: %s\n", err.msg);
        return 1;
    }
    plog_probe_run_t *p;
    size_t n;
    if (plog_probeseries_load(run, &p, &n, &err) != PLOG_OK) {
        fprintf(stderr, "probeseries_show: %s\n", err.msg);
        plog_run_close(run);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        printf("%" PRIu32 " %s %d %" PRId64 " %" PRId64 " %zu %.6f %u\n", p[i].seq,
               plog_probe_trigger_name(p[i].trigger), (int)p[i].set.ranks, p[i].start_ns,
               p[i].end_ns, p[i].set.n, p[i].set.info.elapsed_s, p[i].set.info.nsizes);
    plog_probeseries_free(p, n);
    int64_t last = 0;
    plog_iter_t *it;
    if (plog_iter_open(run, PLOG_ALL_RANKS, &it, &err) == PLOG_OK) {
        const plog_rec_t *rec;
        while (plog_iter_next(it, &rec, &err) == PLOG_OK && rec)
            if (rec->end_ns > last)
                last = rec->end_ns;
        plog_iter_close(it);
    }
    printf("run %" PRId64 "\n", last);
    plog_probeset_t ps;
    plog_err_t e = plog_probeset_load(run, &ps, &err);
    printf("probeset %s %d %zu\n", e == PLOG_OK ? "ok" : plog_strerror(e),
           e == PLOG_OK ? (int)ps.ranks : 0, e == PLOG_OK ? ps.n : 0);
    if (e == PLOG_OK)
        plog_probeset_free(&ps);
    plog_run_close(run);
    return 0;
}
