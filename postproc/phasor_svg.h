/* phasor_svg.h: a hand-written SVG heatmap (log colour scale, labelled axes) for the
 * communication matrix of `phasor report`. */
#ifndef PHASOR_SVG_H
#define PHASOR_SVG_H

#include <stdint.h>
#include <stdio.h>

/* g x g cells, row-major (row = sender block, column = receiver block); block = ranks per
 * cell (the last block may hold fewer), nranks = world size. value[] is what the colour
 * shows (bytes), count[] goes into each cell's tooltip. Zero cells stay background.
 * Returns 0, or -1 if writing failed. */
int svg_heatmap(FILE *f, const char *title, int32_t nranks, int g, int32_t block,
                const double *value, const uint64_t *count);

#endif
