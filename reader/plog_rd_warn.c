/* plog_rd_warn.c: a bounded list of distinct warning lines, for the run and the call-site
 * table (library code never prints: the command lists them). */
#include "plog_rd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void warn_vadd(warn_list_t *w, size_t max, const char *fmt, va_list ap)
{
    if (w->n >= max) {
        w->dropped++;
        return;
    }
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    /* a command that reads a rank twice (phases, predict) finds the same things again */
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->v[i], buf) == 0)
            return;
    char *s = strdup(buf);
    if (s == NULL || VEC_GROW(w->v, w->cap, w->n + 1) != 0) {
        free(s);
        w->dropped++;
        return;
    }
    w->v[w->n++] = s;
}

void warn_free(warn_list_t *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->v[i]);
    free(w->v);
    memset(w, 0, sizeof(*w));
}
