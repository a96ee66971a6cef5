/* phasor_svg.c: the communication-matrix heatmap of `phasor report` as plain SVG: one rect
 * per non-empty cell with a <title> tooltip, a log colour scale, a legend and rank labels
 * thinned to at most ~16 per axis so that 1024 ranks (64 x 64 blocks) stay readable. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* ---- plotting primitives ---- */

void svg_escape(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

void svg_begin(FILE *f, int width, int height, const char *title, const char *subtitle)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n<title>",
            width, height, width, height);
    svg_escape(f, title);
    fprintf(f, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    svg_text(f, 12, 22, "start", 15, 0, title);
    if (subtitle != NULL)
        svg_text(f, 12, 40, "start", 11, 0, subtitle);
}

int svg_end(FILE *f)
{
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}

void svg_text(FILE *f, double x, double y, const char *anchor, int size, double rotate,
              const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"", x, y, anchor,
            size);
    if (rotate != 0)
        fprintf(f, " transform=\"rotate(%.0f %.1f %.1f)\"", rotate, x, y);
    fputc('>', f);
    svg_escape(f, text);
    fputs("</text>\n", f);
}

double svg_px(const svg_plot_t *p, double x)
{
    return p->x + (p->x1 > p->x0 ? (x - p->x0) / (p->x1 - p->x0) : 0.5) * p->w;
}

double svg_py(const svg_plot_t *p, double y)
{
    return p->y + p->h - (p->y1 > p->y0 ? (y - p->y0) / (p->y1 - p->y0) : 0.5) * p->h;
}

double svg_nice_step(double span, int n)
{
    if (!(span > 0) || !isfinite(span))
        return 1;
    double raw = span / (n > 0 ? n : 1), mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static void tick_label(double v, double step, char *out, size_t cap)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (fabs(v) < step * 1e-6)
        v = 0;
    if (dec > 9 || fabs(v) >= 1e7)
        snprintf(out, cap, "%.3g", v);
    else
        snprintf(out, cap, "%.*f", dec, v);
}

void svg_axes(const svg_plot_t *p, double xscale, double yscale, const char *xlabel,
              const char *ylabel)
{
    FILE *f = p->f;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
               "stroke=\"#444\"/>\n", p->x, p->y, p->w, p->h);
    char lab[48];
    for (int axis = 0; axis < 2; axis++) {
        double lo = (axis ? p->y0 : p->x0) / (axis ? yscale : xscale);
        double hi = (axis ? p->y1 : p->x1) / (axis ? yscale : xscale);
        if (!(hi > lo))
            continue;
        double step = svg_nice_step(hi - lo, axis ? 5 : 7);
        for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
            tick_label(v, step, lab, sizeof(lab));
            if (axis) {
                double y = svg_py(p, v * yscale);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"#ddd\"/>\n", p->x, y, p->x + p->w, y);
                svg_text(f, p->x - 4, y + 4, "end", 10, 0, lab);
            } else {
                double x = svg_px(p, v * xscale);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"#ddd\"/>\n", x, p->y, x, p->y + p->h);
                svg_text(f, x, p->y + p->h + 14, "middle", 10, 0, lab);
            }
        }
    }
    if (xlabel)
        svg_text(f, p->x + p->w / 2, p->y + p->h + 32, "middle", 12, 0, xlabel);
    if (ylabel)
        svg_text(f, p->x - 48, p->y + p->h / 2, "middle", 12, -90, ylabel);
}

void svg_polyline(const svg_plot_t *p, const double *x, const double *y, size_t n,
                  const char *colour, double width, const char *dash)
{
    int open = 0;
    for (size_t i = 0; i <= n; i++) {
        int ok = i < n && isfinite(x[i]) && isfinite(y[i]);
        if (ok && !open) {
            fprintf(p->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s "
                          "stroke-linejoin=\"round\" points=\"", colour, width,
                    dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
            open = 1;
        }
        if (ok)
            fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[i]), svg_py(p, y[i]));
        else if (open) {
            fputs("\"/>\n", p->f);
            open = 0;
        }
    }
}

void svg_band(const svg_plot_t *p, const double *x, const double *lo, const double *hi,
              size_t n, const char *colour, double opacity)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && !(isfinite(x[i]) && isfinite(lo[i]) && isfinite(hi[i])))
            i++;
        size_t a = i;
        while (i < n && isfinite(x[i]) && isfinite(lo[i]) && isfinite(hi[i]))
            i++;
        if (i == a)
            continue;
        fprintf(p->f, "<polygon fill=\"%s\" fill-opacity=\"%.2f\" stroke=\"none\" points=\"",
                colour, opacity);
        for (size_t k = a; k < i; k++)
            fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[k]), svg_py(p, hi[k]));
        for (size_t k = i; k > a; k--)
            fprintf(p->f, "%.1f,%.1f ", svg_px(p, x[k - 1]), svg_py(p, lo[k - 1]));
        fputs("\"/>\n", p->f);
    }
}

void svg_vline(const svg_plot_t *p, double x, const char *colour, const char *dash,
               const char *label)
{
    if (!(x >= p->x0 && x <= p->x1))
        return;
    double px = svg_px(p, x);
    fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s%s%s/>\n",
            px, p->y, px, p->y + p->h, colour, dash ? " stroke-dasharray=\"" : "",
            dash ? dash : "", dash ? "\"" : "");
    if (label)
        svg_text(p->f, px + 3, p->y + 11, "start", 10, 0, label);
}

void svg_hline(const svg_plot_t *p, double y, const char *colour, const char *dash,
               const char *label)
{
    if (!(y >= p->y0 && y <= p->y1))
        return;
    double py = svg_py(p, y);
    fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s%s%s/>\n",
            p->x, py, p->x + p->w, py, colour, dash ? " stroke-dasharray=\"" : "",
            dash ? dash : "", dash ? "\"" : "");
    if (label)
        svg_text(p->f, p->x + 4, py - 3, "start", 10, 0, label);
}

void svg_vspan(const svg_plot_t *p, double xa, double xb, const char *colour, double opacity,
               const char *tooltip)
{
    if (xa < p->x0)
        xa = p->x0;
    if (xb > p->x1)
        xb = p->x1;
    if (!(xb >= xa))
        return;
    double a = svg_px(p, xa), b = svg_px(p, xb);
    fprintf(p->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                  "fill-opacity=\"%.2f\">", a, p->y, b - a > 1 ? b - a : 1, p->h, colour, opacity);
    if (tooltip) {
        fputs("<title>", p->f);
        svg_escape(p->f, tooltip);
        fputs("</title>", p->f);
    }
    fputs("</rect>\n", p->f);
}

void svg_legend(const svg_plot_t *p, const svg_key_t *k, size_t n)
{
    /* in rows below the x axis label, so that it never hides data */
    double x = p->x, y = p->y + p->h + 52;
    fputs("<g class=\"legend\">\n", p->f);
    for (size_t i = 0; i < n; i++) {
        double w = 40 + 6.2 * (double)strlen(k[i].label);
        if (x > p->x && x + w > p->x + p->w) {
            x = p->x;
            y += 16;
        }
        if (k[i].width > 0)
            fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                          "stroke-width=\"%.1f\"%s%s%s/>\n", x, y - 4, x + 22, y - 4,
                    k[i].colour, k[i].width, k[i].dash ? " stroke-dasharray=\"" : "",
                    k[i].dash ? k[i].dash : "", k[i].dash ? "\"" : "");
        else
            fprintf(p->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"9\" fill=\"%s\" "
                          "fill-opacity=\"0.5\"/>\n", x, y - 9, k[i].colour);
        svg_text(p->f, x + 26, y, "start", 10, 0, k[i].label);
        x += w;
    }
    fputs("</g>\n", p->f);
}

void svg_colour(double t, int diverging, char out[8])
{
    if (!diverging) {
        colour(t, out);
        return;
    }
    /* blue (#2166ac) - white - red (#b2182b) */
    static const unsigned char div[3][3] = {{0x21, 0x66, 0xac}, {0xf7, 0xf7, 0xf7},
                                            {0xb2, 0x18, 0x2b}};
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    int i = t < 0.5 ? 0 : 1;
    double fr = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(div[i][k] + fr * (div[i + 1][k] - div[i][k]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

#define RASTER_LEVELS 64

static int level(double v, double vmin, double vmax)
{
    if (!isfinite(v))
        return -1;
    double t = vmax > vmin ? (v - vmin) / (vmax - vmin) : 0.5;
    int l = (int)floor(t * RASTER_LEVELS);
    return l < 0 ? 0 : l >= RASTER_LEVELS ? RASTER_LEVELS - 1 : l;
}

void svg_raster(const svg_plot_t *p, size_t rows, size_t cols, const double *v, double vmin,
                double vmax, int diverging)
{
    double cw = p->w / (double)cols, ch = p->h / (double)rows;
    for (size_t r = 0; r < rows; r++) {
        size_t c = 0;
        while (c < cols) {
            int l = level(v[r * cols + c], vmin, vmax);
            size_t e = c + 1;
            while (e < cols && level(v[r * cols + e], vmin, vmax) == l)
                e++;
            if (l >= 0) {
                char col[8];
                svg_colour((l + 0.5) / RASTER_LEVELS, diverging, col);
                /* a hair of overlap hides the seams between cells */
                fprintf(p->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                              "fill=\"%s\"/>\n", p->x + (double)c * cw, p->y + (double)r * ch,
                        (double)(e - c) * cw + 0.3, ch + 0.3, col);
            }
            c = e;
        }
    }
}

void svg_colourbar(FILE *f, double x, double y, double h, double vmin, double vmax,
                   int diverging, const char *caption)
{
    for (int k = 0; k < 32; k++) {
        char col[8];
        svg_colour(1.0 - (k + 0.5) / 32, diverging, col);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"%.2f\" fill=\"%s\"/>\n", x,
                y + k * h / 32, h / 32 + 0.3, col);
    }
    char lab[32];
    snprintf(lab, sizeof(lab), "%.3g", vmax);
    svg_text(f, x + 20, y + 9, "start", 10, 0, lab);
    snprintf(lab, sizeof(lab), "%.3g", vmin);
    svg_text(f, x + 20, y + h, "start", 10, 0, lab);
    if (diverging) {
        snprintf(lab, sizeof(lab), "%.3g", (vmin + vmax) / 2);
        svg_text(f, x + 20, y + h / 2 + 4, "start", 10, 0, lab);
    }
    if (caption)
        svg_text(f, x + 8, y + h + 18, "middle", 10, 0, caption);
}

const char *svg_category(size_t i)
{
    static const char *const pal[10] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                        "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    return pal[i % 10];
}
