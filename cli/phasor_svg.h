/* phasor_svg.h: hand-written SVG: the communication-matrix heatmap of `phasor report` and
 * small plotting primitives (axes with ticks, polylines, bands, rasters, colour bars) for
 * the figures of `phasor phases --plots`. */
#ifndef PHASOR_SVG_H
#define PHASOR_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* g x g cells, row-major (row = sender block, column = receiver block); block = ranks per
 * cell (the last block may hold fewer), nranks = world size. value[] is what the colour
 * shows (bytes), count[] goes into each cell's tooltip. Zero cells stay background.
 * Returns 0, or -1 if writing failed. */
int svg_heatmap(FILE *f, const char *title, int32_t nranks, int g, int32_t block,
                const double *value, const uint64_t *count);

/* ---- plotting primitives ---- */

/* A plot area: data ranges [x0, x1] x [y0, y1] mapped onto the px rectangle (x, y, w, h). */
typedef struct svg_plot {
    FILE *f;
    double x0, x1, y0, y1;
    double x, y, w, h;
} svg_plot_t;

/* The document: XML header, white background, title (font 15) and an optional subtitle. */
void svg_begin(FILE *f, int width, int height, const char *title, const char *subtitle);
int svg_end(FILE *f); /* closes the document; 0, or -1 if writing failed */
/* Text with the XML specials escaped; anchor "start", "middle" or "end"; rotate in degrees. */
void svg_text(FILE *f, double x, double y, const char *anchor, int size, double rotate,
              const char *text);
void svg_escape(FILE *f, const char *s);
double svg_px(const svg_plot_t *p, double x);
double svg_py(const svg_plot_t *p, double y);
/* A "nice" tick step (1, 2 or 5 x 10^k) for about n ticks over span. */
double svg_nice_step(double span, int n);
/* Frame, ticks with grid lines (ticks in data units divided by xscale / yscale, so that
 * time in ns can be labelled in ms), axis labels. */
void svg_axes(const svg_plot_t *p, double xscale, double yscale, const char *xlabel,
              const char *ylabel);
/* Polyline through the finite points; a NaN breaks the line. dash may be NULL. */
void svg_polyline(const svg_plot_t *p, const double *x, const double *y, size_t n,
                  const char *colour, double width, const char *dash);
/* Filled band between lo and hi (NaN breaks it into pieces). */
void svg_band(const svg_plot_t *p, const double *x, const double *lo, const double *hi,
              size_t n, const char *colour, double opacity);
/* Vertical line at data x with an optional label at the top; a shaded span [xa, xb]. */
void svg_vline(const svg_plot_t *p, double x, const char *colour, const char *dash,
               const char *label);
void svg_hline(const svg_plot_t *p, double y, const char *colour, const char *dash,
               const char *label);
void svg_vspan(const svg_plot_t *p, double xa, double xb, const char *colour, double opacity,
               const char *tooltip);
/* Legend in rows below the x axis label (the caller leaves ~60 px under the plot area):
 * n entries, a line sample each (dash may be NULL, width <= 0 draws a filled square). */
typedef struct svg_key {
    const char *label, *colour, *dash;
    double width;
} svg_key_t;
void svg_legend(const svg_plot_t *p, const svg_key_t *k, size_t n);
/* The i-th colour of a categorical palette of 10 (Tableau's), repeating: lines per link,
 * points per regime. */
const char *svg_category(size_t i);
/* Colour of t in [0, 1]: viridis (sequential) or blue-white-red (diverging, 0.5 white). */
void svg_colour(double t, int diverging, char out[8]);
/* rows x cols cells covering the plot area (row 0 at the top), value v[r * cols + c]
 * coloured over [vmin, vmax]; NaN cells stay background. Runs of equal colour (64 levels)
 * in a row are one rect, so that smooth maps stay small. */
void svg_raster(const svg_plot_t *p, size_t rows, size_t cols, const double *v, double vmin,
                double vmax, int diverging);
/* Vertical colour bar at (x, y), h px high, labelled with vmin, vmax and a caption. */
void svg_colourbar(FILE *f, double x, double y, double h, double vmin, double vmax,
                   int diverging, const char *caption);

#endif
