/* phasor_predict.h: the writers of `phasor predict` (cli/phasor_predict.c) that its tests
 * check on their own. */
#ifndef PHASOR_PREDICT_H
#define PHASOR_PREDICT_H

#include <stdint.h>
#include <stdio.h>

#include "predict_replay.h"

/* The links' load a model prices with (pr_load_t), on one line of the text output: the
 * unloaded time per byte and the ranks (of world) whose link looked slower, the slowest
 * first, at most 8 of them. */
void phasor_predict_links_text(FILE *o, int32_t world, const pr_load_t *l);

#endif
