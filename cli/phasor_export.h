/* phasor_export.h: the OTF2 and SimGrid writers of `phasor export` (cli/phasor_export_otf2.c,
 * cli/phasor_export_simgrid.c). */
#ifndef PHASOR_EXPORT_H
#define PHASOR_EXPORT_H

#include "plog_reader.h"

/* Write the run as an OTF2 archive in the new directory dir (traces.otf2, traces.def,
 * traces/); returns a PHASOR_EXIT_* status after a one-line message on failure. */
int phasor_export_otf2(plog_run_t *run, const char *dir);

/* Write the run as SimGrid 3.32 time-independent traces, platform, hostfile and run.sh in
 * dir (created if missing); returns a PHASOR_EXIT_* status after a one-line message on
 * failure. What SimGrid cannot express is counted in warnings on stderr. */
int phasor_export_simgrid(plog_run_t *run, const char *dir);

#endif
