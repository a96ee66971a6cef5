/* why.c: the reason buffer of why.h. */
#include "why.h"

#include <stdio.h>

void why_vset(char *why, size_t n, const char *fmt, va_list ap)
{
    if (why != NULL && n > 0)
        vsnprintf(why, n, fmt, ap);
}

int why_fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    why_vset(why, n, fmt, ap);
    va_end(ap);
    return -1;
}
