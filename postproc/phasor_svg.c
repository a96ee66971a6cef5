/* phasor_svg.c: the communication-matrix heatmap of `phasor report` as plain SVG: one rect
 * per non-empty cell with a <title> tooltip, a log colour scale, a legend and rank labels
 * thinned to at most ~16 per axis so that 1024 ranks (64 x 64 blocks) stay readable. */
#include <math.h>
#include <stdio.h>

#include "phasor_svg.h"

#define SVG_MAP 640  /* px of the square map */
#define SVG_LEFT 90
#define SVG_TOP 110 /* room for the title, the receiver caption and rotated labels */

/* viridis, five stops: dark = little, yellow = most */
static const unsigned char ramp[5][3] = {
    {0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62},
    {0xfd, 0xe7, 0x25}};

static void colour(double t, char out[8])
{
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    double x = t * 4;
    int i = (int)x;
    if (i > 3)
        i = 3;
    double f = x - i;
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(ramp[i][k] + f * (ramp[i + 1][k] - ramp[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static void human(double v, char *out, size_t cap)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void range(int32_t lo, int32_t hi, char *out, size_t cap)
{
    if (lo == hi)
        snprintf(out, cap, "%d", (int)lo);
    else
        snprintf(out, cap, "%d-%d", (int)lo, (int)hi);
}

int svg_heatmap(FILE *f, const char *title, int32_t nranks, int g, int32_t block,
                const double *value, const uint64_t *count)
{
    double vmin = 0, vmax = 0;
    for (long i = 0; i < (long)g * g; i++)
        if (value[i] > 0) {
            if (vmin == 0 || value[i] < vmin)
                vmin = value[i];
            if (value[i] > vmax)
                vmax = value[i];
        }
    double lmin = vmin > 0 ? log(vmin) : 0, lspan = vmax > vmin ? log(vmax) - lmin : 0;
    double cell = (double)SVG_MAP / g;
    int width = SVG_LEFT + SVG_MAP + 150, height = SVG_TOP + SVG_MAP + 30;

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\">", SVG_LEFT);
    for (const char *p = title; *p; p++) /* escape the three XML specials of a path */
        fputs(*p == '<' ? "&lt;" : *p == '>' ? "&gt;" : *p == '&' ? "&amp;" : (char[2]){*p, 0},
              f);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"40\">bytes sent, sender (row) to receiver (column)"
               "%s, log colour scale</text>\n",
            SVG_LEFT, block > 1 ? "; blocks of ranks" : "");
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f2f2f2\" "
               "stroke=\"#888\"/>\n",
            SVG_LEFT, SVG_TOP, SVG_MAP, SVG_MAP);

    for (int r = 0; r < g; r++)
        for (int c = 0; c < g; c++) {
            double v = value[(long)r * g + c];
            if (!(v > 0))
                continue;
            char col[8], b[32], s[32], d[32];
            colour(lspan > 0 ? (log(v) - lmin) / lspan : 1.0, col);
            human(v, b, sizeof(b));
            int32_t s0 = r * block, d0 = c * block;
            range(s0, s0 + block - 1 < nranks - 1 ? s0 + block - 1 : nranks - 1, s, sizeof(s));
            range(d0, d0 + block - 1 < nranks - 1 ? d0 + block - 1 : nranks - 1, d, sizeof(d));
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                       "<title>%s -&gt; %s: %llu messages, %s</title></rect>\n",
                    SVG_LEFT + c * cell, SVG_TOP + r * cell, cell, cell, col, s, d,
                    (unsigned long long)count[(long)r * g + c], b);
        }

    /* axis labels: every step-th cell, step chosen for at most ~16 labels */
    int step = (g + 15) / 16;
    for (int i = 0; i < g; i += step) {
        double mid = (i + 0.5) * cell;
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">"
                   "%d</text>\n",
                SVG_LEFT - 4, SVG_TOP + mid, (int)(i * block));
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"start\" "
                   "transform=\"rotate(-60 %.1f %d)\">%d</text>\n",
                SVG_LEFT + mid, SVG_TOP - 4, SVG_LEFT + mid, SVG_TOP - 4, (int)(i * block));
    }
    fprintf(f, "<text x=\"%d\" y=\"62\" text-anchor=\"middle\">receiver (world rank)</text>\n",
            SVG_LEFT + SVG_MAP / 2);
    fprintf(f, "<text x=\"20\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 20 %d)\">"
               "sender (world rank)</text>\n",
            SVG_TOP + SVG_MAP / 2, SVG_TOP + SVG_MAP / 2);

    /* legend: the ramp from the smallest to the largest non-zero cell */
    int lx = SVG_LEFT + SVG_MAP + 30, ly = SVG_TOP, lh = 200;
    for (int k = 0; k < 20; k++) {
        char col[8];
        colour(1.0 - k / 19.0, col);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"20\" height=\"%d\" fill=\"%s\"/>\n", lx,
                ly + k * lh / 20, lh / 20 + 1, col);
    }
    char lo[32], hi[32];
    human(vmax, hi, sizeof(hi));
    human(vmin, lo, sizeof(lo));
    fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n<text x=\"%d\" y=\"%d\">%s</text>\n", lx + 26,
            ly + 10, hi, lx + 26, ly + lh, lo);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"20\" height=\"10\" fill=\"#f2f2f2\" "
               "stroke=\"#888\"/><text x=\"%d\" y=\"%d\">none</text>\n",
            lx, ly + lh + 20, lx + 26, ly + lh + 29);
    if (block > 1)
        fprintf(f, "<text x=\"%d\" y=\"%d\">%d ranks per cell</text>\n", lx, ly + lh + 55,
                (int)block);
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
