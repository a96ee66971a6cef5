/* phasor_phases.h: what `phasor phases` shares with the commands that study phases too
 * (`phasor oscillate`): the study's defaults and the --marker argument. */
#ifndef PHASOR_PHASES_H
#define PHASOR_PHASES_H

#include "phases_study.h"

/* The defaults of `phasor phases` (doc/phases-format.md), the potential aside. */
void phases_study_defaults(ph_study_opts_t *so);
/* --marker: auto, period, pcontrol[:LEVEL], CALL[@SITE] into sp; 0, or -1 for anything else. */
int phases_marker_arg(const char *s, ph_mark_spec_t *sp);

#endif
